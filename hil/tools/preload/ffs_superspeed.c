/*
 * ffs_superspeed: an LD_PRELOAD library that gives a FunctionFS daemon's USB descriptors a SuperSpeed set.
 *
 *   LD_PRELOAD=/usr/lib/hil/ffs_superspeed.so umtprd -conf umtprd.conf
 *
 * f_fs leaves a function out of a SuperSpeed configuration unless its daemon wrote SuperSpeed descriptors
 * to ep0 (FUNCTIONFS_HAS_SS_DESC): on a super-speed UDC such a gadget never enumerates. Debian 12's umtprd
 * (1.3.10) writes full and high speed descriptors only. This library wraps write(): a write to a FunctionFS
 * ep0 that carries a descriptor blob in the V2 format (include/uapi/linux/usb/functionfs.h: magic 3, length,
 * flags, the eventfd if flagged, the counts of the flagged speeds in the order fs, hs, ss, the MS OS count if
 * flagged, each speed's descriptors, the MS OS descriptors) and has no SuperSpeed set is written with one
 * added, built from the high speed set:
 *   - every descriptor copied in order;
 *   - a bulk endpoint gets wMaxPacketSize 1024 and a SuperSpeed endpoint companion with bMaxBurst 15
 *     (bursts of 16 packets, what f_mass_storage announces);
 *   - an interrupt endpoint keeps its wMaxPacketSize and bInterval, its companion's wBytesPerInterval is
 *     that packet size (one packet per interval).
 * The full and high speed sets keep the bulk sizes their speeds allow, whatever the daemon wrote: 64 at
 * full speed (8/16/32 stay), 512 at high speed. umtprd writes its `usb_max_packet_size` into both, and at
 * super speed that must be 1024, because umtprd ends a transfer with a zero-length packet by that size.
 *
 * Everything else passes through untouched: the strings blob, endpoint data, writes to any other file, a blob
 * that already has a SuperSpeed set, and one this library cannot extend (isochronous or high-bandwidth
 * endpoints, no high speed set, unknown flags, a malformed blob). A blob the kernel refuses is the daemon's
 * error, with this library's line beside it. One line on stderr per descriptor blob:
 *   ffs_superspeed: added SuperSpeed descriptors (7 descriptors, 3 endpoints) on /dev/ffs-mtp/ep0
 *   ffs_superspeed: passed through unchanged on /dev/ffs-mtp/ep0: <reason>
 * HIL_FFS_DUMP=FILE writes each descriptor blob as the daemon wrote it to FILE first (to capture it).
 *
 * ffs_superspeed_rewrite() is the rewrite alone, for tests (tests/tools/test_ffs_superspeed.py).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FUNCTIONFS_MAGIC 0xa647361 /* f_fs's superblock magic: the kernel keeps it out of the uapi headers */
#define KNOWN_FLAGS                                                                                        \
	(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC | FUNCTIONFS_HAS_SS_DESC | FUNCTIONFS_HAS_MS_OS_DESC | \
	 FUNCTIONFS_VIRTUAL_ADDR | FUNCTIONFS_EVENTFD | FUNCTIONFS_ALL_CTRL_RECIP | FUNCTIONFS_CONFIG0_SETUP)
#define SS_BULK_MAXPACKET 1024
#define SS_BULK_MAXBURST 15
#define HS_BULK_MAXPACKET 512
#define FS_BULK_MAXPACKET 64
#define MAXPACKET_SIZE_MASK 0x07ff /* wMaxPacketSize bits 10..0; 12..11 are high speed's extra transactions */

static ssize_t (*real_write)(int, const void *, size_t);

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* Bytes taken by `count` descriptors at `p` (within `len`), or -1 if one is shorter than 2 bytes or overruns. */
static long descs_length(const uint8_t *p, size_t len, uint32_t count)
{
	size_t pos = 0;

	for (uint32_t i = 0; i < count; i++) {
		if (len - pos < 2 || p[pos] < 2 || p[pos] > len - pos)
			return -1;
		pos += p[pos];
	}
	return (long)pos;
}

static int is_endpoint(const uint8_t *d)
{
	return d[1] == USB_DT_ENDPOINT && d[0] >= USB_DT_ENDPOINT_SIZE;
}

static int is_bulk(const uint8_t *d)
{
	return (d[3] & USB_ENDPOINT_XFERTYPE_MASK) == USB_ENDPOINT_XFER_BULK;
}

/* The only bulk sizes a full (8/16/32/64) or high speed (512) endpoint may have. */
static void legal_bulk_sizes(uint8_t *p, size_t len, int high_speed)
{
	for (size_t pos = 0; pos < len; pos += p[pos]) {
		uint8_t *d = p + pos;
		uint16_t size;

		if (!is_endpoint(d) || !is_bulk(d))
			continue;
		size = get_le16(d + 4);
		if (high_speed)
			size = HS_BULK_MAXPACKET;
		else if (size != 8 && size != 16 && size != 32 && size != 64)
			size = FS_BULK_MAXPACKET;
		put_le16(d + 4, size);
	}
}

/* The SuperSpeed set built from the high speed one (see the top of this file): its length, or 0 and *why. */
static size_t superspeed_set(const uint8_t *hs, size_t len, uint8_t *out, size_t cap, uint32_t *count,
			     unsigned int *endpoints, const char **why)
{
	size_t pos, n = 0;

	*count = 0;
	*endpoints = 0;
	for (pos = 0; pos < len; pos += hs[pos]) {
		const uint8_t *d = hs + pos;
		uint8_t *copy = out + n;
		uint16_t size = 0;

		if (cap - n < (size_t)d[0] + USB_DT_SS_EP_COMP_SIZE) {
			*why = "the output buffer is too small";
			return 0;
		}
		memcpy(copy, d, d[0]);
		n += d[0];
		++*count;
		if (d[1] == USB_DT_SS_ENDPOINT_COMP) {
			*why = "the high speed set holds a SuperSpeed endpoint companion";
			return 0;
		}
		if (!is_endpoint(d))
			continue;
		switch (d[3] & USB_ENDPOINT_XFERTYPE_MASK) {
		case USB_ENDPOINT_XFER_BULK:
			put_le16(copy + 4, SS_BULK_MAXPACKET);
			break;
		case USB_ENDPOINT_XFER_INT:
			size = get_le16(d + 4);
			if (size & ~MAXPACKET_SIZE_MASK) {
				*why = "a high-bandwidth interrupt endpoint (no rule for its SuperSpeed burst)";
				return 0;
			}
			break;
		default:
			*why = "an isochronous or control endpoint (no rule for its SuperSpeed companion)";
			return 0;
		}
		out[n] = USB_DT_SS_EP_COMP_SIZE;
		out[n + 1] = USB_DT_SS_ENDPOINT_COMP;
		out[n + 2] = is_bulk(d) ? SS_BULK_MAXBURST : 0;
		out[n + 3] = 0; /* no streams, one transaction per interval */
		put_le16(out + n + 4, size);
		n += USB_DT_SS_EP_COMP_SIZE;
		++*count;
		++*endpoints;
	}
	return n;
}

/*
 * `in` (len bytes) with a SuperSpeed set added, written to `out` (cap bytes; 3 * len + 4 always suffices):
 * the new length, or 0 with *why saying why the blob is to pass through unchanged. *ss_count and *endpoints:
 * how many descriptors and endpoints the SuperSpeed set has.
 */
size_t ffs_superspeed_rewrite(const uint8_t *in, size_t len, uint8_t *out, size_t cap, uint32_t *ss_count,
			      unsigned int *endpoints, const char **why)
{
	uint32_t flags, counts[2] = {0, 0};
	size_t pos = 12, head, fs_len, hs_len, ss_len, tail_len, n;
	long walked;

	*ss_count = 0;
	*endpoints = 0;
	if (len < 12 || get_le32(in) != FUNCTIONFS_DESCRIPTORS_MAGIC_V2) {
		*why = "not a descriptor blob in the V2 format";
		return 0;
	}
	if (get_le32(in + 4) != len) {
		*why = "its length field is not the length written";
		return 0;
	}
	flags = get_le32(in + 8);
	if (flags & FUNCTIONFS_HAS_SS_DESC) {
		*why = "it already has SuperSpeed descriptors";
		return 0;
	}
	if (flags & ~(uint32_t)KNOWN_FLAGS) {
		*why = "flags this library does not know";
		return 0;
	}
	if (!(flags & FUNCTIONFS_HAS_HS_DESC)) {
		*why = "no high speed descriptors to build the SuperSpeed set from";
		return 0;
	}
	if (flags & FUNCTIONFS_EVENTFD)
		pos += 4;
	for (int speed = 0; speed < 2; speed++) {
		if (!(flags & (1u << speed)))
			continue;
		if (len < pos + 4) {
			*why = "the blob ends inside its counts";
			return 0;
		}
		counts[speed] = get_le32(in + pos);
		pos += 4;
	}
	head = pos; /* the MS OS count, if flagged, comes after ss_count: copied with the tail below */
	if (flags & FUNCTIONFS_HAS_MS_OS_DESC) {
		if (len < pos + 4) {
			*why = "the blob ends inside its counts";
			return 0;
		}
		pos += 4;
	}
	walked = descs_length(in + pos, len - pos, counts[0]);
	if (walked < 0) {
		*why = "its full speed descriptors overrun the blob";
		return 0;
	}
	fs_len = (size_t)walked;
	walked = descs_length(in + pos + fs_len, len - pos - fs_len, counts[1]);
	if (walked <= 0) {
		*why = "its high speed descriptors are missing or overrun the blob";
		return 0;
	}
	hs_len = (size_t)walked;
	tail_len = len - pos - fs_len - hs_len;
	if (tail_len && !(flags & FUNCTIONFS_HAS_MS_OS_DESC)) {
		*why = "bytes after its descriptors";
		return 0;
	}
	/* header and counts, ss_count, [MS OS count], fs, hs, ss, MS OS descriptors */
	n = head + 4 + (pos - head) + fs_len + hs_len;
	if (cap < n + tail_len) {
		*why = "the output buffer is too small";
		return 0;
	}
	memcpy(out, in, head);
	memcpy(out + head + 4, in + head, pos - head);
	memcpy(out + head + 4 + (pos - head), in + pos, fs_len + hs_len);
	legal_bulk_sizes(out + n - fs_len - hs_len, fs_len, 0);
	legal_bulk_sizes(out + n - hs_len, hs_len, 1);
	ss_len = superspeed_set(in + pos + fs_len, hs_len, out + n, cap - n - tail_len, ss_count, endpoints, why);
	if (ss_len == 0)
		return 0;
	put_le32(out + head, *ss_count);
	n += ss_len;
	memcpy(out + n, in + pos + fs_len + hs_len, tail_len);
	n += tail_len;
	put_le32(out + 4, (uint32_t)n);
	put_le32(out + 8, flags | FUNCTIONFS_HAS_SS_DESC);
	return n;
}

__attribute__((format(printf, 1, 2))) static void say(const char *format, ...)
{
	char line[512];
	va_list args;
	int n;

	va_start(args, format);
	n = vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	if (n > 0)
		real_write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

__attribute__((constructor)) static void find_real_write(void)
{
	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
}

/* fd is the ep0 file of a mounted FunctionFS: its path (for messages) in `path`. */
static int is_functionfs_ep0(int fd, char *path, size_t size)
{
	char link[64];
	struct statfs fs;
	ssize_t n;
	const char *base;

	if (fstatfs(fd, &fs) != 0 || (unsigned long)fs.f_type != FUNCTIONFS_MAGIC)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	base = strrchr(path, '/');
	return strcmp(base ? base + 1 : path, "ep0") == 0;
}

static void dump(const void *buf, size_t count)
{
	const char *file = getenv("HIL_FFS_DUMP");
	int fd;

	if (!file || !*file)
		return;
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || real_write(fd, buf, count) != (ssize_t)count)
		say("ffs_superspeed: could not dump the descriptors to %s: %s\n", file, strerror(errno));
	if (fd >= 0)
		close(fd);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	char path[256];
	const char *why = "";
	unsigned int endpoints;
	uint32_t descriptors;
	uint8_t *out;
	size_t n, cap;
	ssize_t written;
	int saved;

	if (!real_write)
		find_real_write();
	if (count < 12 || get_le32(buf) != FUNCTIONFS_DESCRIPTORS_MAGIC_V2 || get_le32((const uint8_t *)buf + 4) != count ||
	    !is_functionfs_ep0(fd, path, sizeof(path)))
		return real_write(fd, buf, count);

	dump(buf, count);
	cap = 3 * count + 4;
	out = malloc(cap);
	n = out ? ffs_superspeed_rewrite(buf, count, out, cap, &descriptors, &endpoints, &why) : 0;
	if (n == 0) {
		say("ffs_superspeed: passed through unchanged on %s: %s\n", path, out ? why : "out of memory");
		free(out);
		return real_write(fd, buf, count);
	}
	written = real_write(fd, out, n);
	saved = errno;
	free(out);
	if (written != (ssize_t)n) {
		say("ffs_superspeed: the kernel refused the descriptors with SuperSpeed added on %s: %s (%u of %u bytes)\n",
		    path, written < 0 ? strerror(saved) : "short write", written < 0 ? 0 : (unsigned int)written,
		    (unsigned int)n);
		errno = written < 0 ? saved : EIO;
		return -1;
	}
	say("ffs_superspeed: added SuperSpeed descriptors (%u descriptors, %u endpoints) on %s\n", descriptors, endpoints, path);
	return (ssize_t)count; /* what the daemon wrote, as far as it knows */
}
