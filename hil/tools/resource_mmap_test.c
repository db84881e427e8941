/*
 * BAR load/store throughput (seed 002 section 5): map a PCI resource file
 * (/sys/bus/pci/devices/<bdf>/resourceN) and time CPU stores and loads of one width over it.
 *
 *   resource_mmap_test PATH BYTES WIDTH LOOPS
 *
 * WIDTH is 32 or 64 (bits per access). Prints one line:
 *   bytes=B width=W loops=L store_ns=N load_ns=N store_mb_s=X load_mb_s=Y
 * where bytes is per loop and the rates are bytes * loops / ns * 1000 (MB/s, 10^6 B/s).
 *
 * Accesses go through volatile pointers, so the compiler keeps every one of them at any -O level
 * (the seed builds its program with -O0 for that reason). Any regular file works too: that is how
 * the program is tested off a board.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int number(const char *text, unsigned long long *value)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	*value = strtoull(text, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static void store32(volatile uint32_t *p, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = v;
}

static uint32_t load32(const volatile uint32_t *p, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

static void store64(volatile uint64_t *p, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = v;
}

static uint64_t load64(const volatile uint64_t *p, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long long bytes, width, loops;
	uint64_t start, store_ns, load_ns, sum = 0;
	struct stat st;
	void *map;
	int fd;

	if (argc != 5 || number(argv[2], &bytes) || number(argv[3], &width) || number(argv[4], &loops) ||
	    (width != 32 && width != 64) || bytes == 0 || loops == 0 || bytes % (width / 8)) {
		fprintf(stderr, "usage: %s PATH BYTES WIDTH(32|64) LOOPS (BYTES a multiple of the width)\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* sysfs resource files report the BAR's size; a BAR smaller than asked cannot be mapped. */
	if (st.st_size > 0 && (unsigned long long)st.st_size < bytes) {
		fprintf(stderr, "%s: %lld bytes, smaller than %llu\n", argv[1], (long long)st.st_size, bytes);
		return 1;
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", argv[1], strerror(errno));
		return 1;
	}

	start = now_ns();
	for (unsigned long long i = 0; i < loops; i++) {
		if (width == 32)
			store32(map, bytes / 4, (uint32_t)i);
		else
			store64(map, bytes / 8, i);
	}
	store_ns = now_ns() - start;

	start = now_ns();
	for (unsigned long long i = 0; i < loops; i++)
		sum += width == 32 ? load32(map, bytes / 4) : load64(map, bytes / 8);
	load_ns = now_ns() - start;

	if (store_ns == 0 || load_ns == 0) {
		fprintf(stderr, "clock too coarse for %llu bytes x %llu loops\n", bytes, loops);
		return 1;
	}
	printf("bytes=%llu width=%llu loops=%llu store_ns=%" PRIu64 " load_ns=%" PRIu64
	       " store_mb_s=%.3f load_mb_s=%.3f\n",
	       bytes, width, loops, store_ns, load_ns, (double)bytes * loops * 1000.0 / store_ns,
	       (double)bytes * loops * 1000.0 / load_ns);
	/* The sum keeps the loads observable; stderr keeps the result line alone on stdout. */
	fprintf(stderr, "checksum=%" PRIx64 "\n", sum);
	munmap(map, bytes);
	close(fd);
	return 0;
}
