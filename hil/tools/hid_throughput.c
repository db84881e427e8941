/*
 * hid_throughput: move HID reports through a HID gadget (/dev/hidgN) or its host side (/dev/hidrawN)
 * and time them on the board itself (seed 000 "USB Gadget HID 传输速率分析").
 *
 *   hid_throughput write|read DEVICE REPORT_BYTES COUNT TIMEOUT_S [hidraw]
 *
 * write: COUNT reports of REPORT_BYTES each; report i carries i (32-bit little endian) in its first
 *        bytes and a pattern derived from i in the rest. With "hidraw", every write is prefixed with
 *        report number 0, which hidraw wants for a device without numbered reports.
 * read:  reads reports until the one numbered COUNT-1 arrives, checking each read's size, number and
 *        pattern. The clock runs from the first report's arrival to the last one's, so start-up and
 *        enumeration are not timed. The rate counts the reports numbered after the first one seen
 *        (`timed_reports` = last number - `first`): a gadget's write completes only when the host
 *        controller took the report, so every number in between crossed the link in that time, also
 *        one that the host's hidraw queue dropped before this reader got it (counted in `lost`).
 *
 * Once DEVICE is open it prints "hid_throughput ready", so the other side can start after the reader.
 * Then it prints one line (the last thing on stdout), the rate recomputable from its own fields:
 *   hid_throughput mode=read report_bytes=512 reports=1000 first=0 timed_reports=999 timed_ns=123
 *   lost=0 corrupt=0 kB_s=4.156
 * Exit status: 0 complete, 2 bad arguments or device, 3 a read/write failed or returned a short report,
 * 4 the time bound passed or TERM came before the last report (the line is printed with what was seen:
 * hil stops a hidraw reader so when the host dropped the last reports, after the writer finished).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPORT 16384 /* the kernel's HID_MAX_BUFFER_SIZE */

static volatile sig_atomic_t expired;

static void on_alarm(int sig)
{
	(void)sig;
	expired = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long number(const char *text, long min, long max, const char *what)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno || *text == '\0' || *end != '\0' || value < min || value > max) {
		fprintf(stderr, "hid_throughput: %s must be %ld..%ld, got '%s'\n", what, min, max, text);
		exit(2);
	}
	return value;
}

static void fill(unsigned char *report, long bytes, uint32_t seq)
{
	long i;

	for (i = 0; i < bytes; i++)
		report[i] = (unsigned char)(seq * 7u + (uint32_t)i);
	for (i = 0; i < 4 && i < bytes; i++)
		report[i] = (unsigned char)(seq >> (8 * i));
}

static uint32_t seq_of(const unsigned char *report)
{
	return (uint32_t)report[0] | (uint32_t)report[1] << 8 | (uint32_t)report[2] << 16 |
	       (uint32_t)report[3] << 24;
}

static void summary(const char *mode, long bytes, long reports, long first, long timed, uint64_t ns,
		    long lost, long corrupt)
{
	double rate = ns ? (double)timed * (double)bytes / ((double)ns / 1e9) / 1000.0 : 0.0;

	printf("hid_throughput mode=%s report_bytes=%ld reports=%ld first=%ld timed_reports=%ld timed_ns=%llu "
	       "lost=%ld corrupt=%ld kB_s=%.3f\n",
	       mode, bytes, reports, first, timed, (unsigned long long)ns, lost, corrupt, rate);
	fflush(stdout);
}

static int do_write(int fd, long bytes, long count, int hidraw)
{
	static unsigned char buf[MAX_REPORT + 1];
	unsigned char *report = hidraw ? buf + 1 : buf;
	size_t length = (size_t)bytes + (hidraw ? 1 : 0);
	uint64_t first = 0, last = 0;
	long sent;

	buf[0] = 0; /* hidraw: report number 0, i.e. the device numbers none */
	for (sent = 0; sent < count; sent++) {
		ssize_t done;

		fill(report, bytes, (uint32_t)sent);
		done = expired ? -1 : write(fd, buf, length);
		if (done < 0 && expired)
			break;
		if (done != (ssize_t)length) {
			summary("write", bytes, sent, 0, sent ? sent - 1 : 0, last - first, 0, 0);
			fprintf(stderr, "hid_throughput: write of report %ld returned %zd of %zu bytes: %s\n", sent,
				done, length, done < 0 ? strerror(errno) : "short write");
			return 3;
		}
		last = now_ns();
		if (sent == 0)
			first = last;
	}
	summary("write", bytes, sent, 0, sent ? sent - 1 : 0, last - first, 0, 0);
	if (sent < count) {
		fprintf(stderr, "hid_throughput: time bound passed after %ld of %ld reports\n", sent, count);
		return 4;
	}
	return 0;
}

/* A reader's line: `lost` is every number of 0..COUNT-1 it never saw (also after the last one it saw). */
static void read_summary(long bytes, long count, long received, long corrupt, int64_t first_seq, int64_t last_seq,
			 uint64_t ns)
{
	long valid = received - corrupt;

	summary("read", bytes, received, first_seq < 0 ? 0 : (long)first_seq,
		first_seq < 0 ? 0 : (long)(last_seq - first_seq), ns, count - valid, corrupt);
}

static int do_read(int fd, long bytes, long count)
{
	static unsigned char report[MAX_REPORT + 1], expected[MAX_REPORT];
	uint64_t first = 0, last = 0;
	long received = 0, corrupt = 0;
	int64_t previous = -1, first_seq = -1;

	for (;;) {
		/* One byte more than a report: a longer report than configured shows as a wrong size. */
		ssize_t got = expired ? -1 : read(fd, report, (size_t)bytes + 1);
		uint32_t seq;

		if (got < 0 && expired) {
			read_summary(bytes, count, received, corrupt, first_seq, previous, last - first);
			fprintf(stderr, "hid_throughput: stopped (time bound or TERM) after %ld reports, last number %lld of %ld\n",
				received, (long long)previous, count - 1);
			return 4;
		}
		if (got != bytes) {
			read_summary(bytes, count, received, corrupt, first_seq, previous, last - first);
			fprintf(stderr, "hid_throughput: read after %ld reports returned %zd bytes, expected %ld: %s\n",
				received, got, bytes, got < 0 ? strerror(errno) : "wrong report size");
			return 3;
		}
		received++;
		seq = seq_of(report);
		fill(expected, bytes, seq);
		if ((int64_t)seq <= previous || seq >= (uint32_t)count || memcmp(report, expected, (size_t)bytes)) {
			corrupt++;
			continue;
		}
		last = now_ns();
		if (first_seq < 0) {
			first = last;
			first_seq = seq;
		}
		previous = seq;
		if ((long)seq == count - 1)
			break;
	}
	read_summary(bytes, count, received, corrupt, first_seq, previous, last - first);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction action;
	long bytes, count, timeout;
	int fd, writing, hidraw;

	if ((argc != 6 && argc != 7) || (strcmp(argv[1], "write") && strcmp(argv[1], "read")) ||
	    (argc == 7 && strcmp(argv[6], "hidraw"))) {
		fprintf(stderr, "usage: hid_throughput write|read DEVICE REPORT_BYTES COUNT TIMEOUT_S [hidraw]\n");
		return 2;
	}
	writing = !strcmp(argv[1], "write");
	hidraw = argc == 7;
	bytes = number(argv[3], 4, MAX_REPORT, "REPORT_BYTES");
	count = number(argv[4], 2, 100000000, "COUNT");
	timeout = number(argv[5], 1, 86400, "TIMEOUT_S");

	/* No SA_RESTART: the alarm must interrupt a read or write that waits for the other side. */
	memset(&action, 0, sizeof(action));
	action.sa_handler = on_alarm;
	sigaction(SIGALRM, &action, NULL);
	sigaction(SIGTERM, &action, NULL); /* stopped by the other side's wrapper: print what was seen */

	fd = open(argv[2], writing ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "hid_throughput: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	printf("hid_throughput ready mode=%s\n", argv[1]);
	fflush(stdout);
	alarm((unsigned)timeout);
	return writing ? do_write(fd, bytes, count, hidraw) : do_read(fd, bytes, count);
}
