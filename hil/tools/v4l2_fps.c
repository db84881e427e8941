/*
 * Frame rate of a V4L2 capture device (a UVC camera), from the driver's own buffer timestamps.
 *
 *   v4l2_fps DEVICE FORMAT WIDTH HEIGHT FRAMES TIMEOUT_S
 *
 * Streams FRAMES frames with mmap buffers in FORMAT (yuyv, mjpeg or h264) at WIDTH x HEIGHT, checking
 * every one, and prints one summary line:
 *
 *   v4l2_fps format=yuyv width=640 height=480 frames=300 span_us=U fps=F dropped=D corrupt=C
 *            bytes=B first_seq=S last_seq=S
 *
 * fps = (frames - 1) / span, span = last timestamp - first timestamp (the driver stamps a frame
 * when its first packet arrives: uvcvideo uses the monotonic clock). dropped = frames the sequence
 * numbers skipped (the driver had no buffer, or lost them). corrupt = frames flagged
 * V4L2_BUF_FLAG_ERROR, YUYV frames whose bytesused is not WIDTH*HEIGHT*2, MJPEG frames that do not
 * start with SOI (FF D8) and end with EOI (FF D9), H264 frames that do not start with an Annex B start
 * code (00 00 01 or 00 00 00 01: UVC carries H.264 as a byte stream). Corrupt frames are counted in
 * frames too. hil's own cameras (counter, below) stream YUYV and MJPEG only.
 *
 * A device that will not take the format exactly, or a frame that does not arrive within
 * TIMEOUT_S, is an error: a message on stderr and exit status 1, no summary. A format request that
 * failed on the wire is asked again twice ("v4l2_fps: VIDIOC_S_FMT: ...: asked again" on stderr).
 *
 * dropped is the gap the sequence numbers leave: (last_seq - first_seq + 1) - frames. A sequence number
 * that does not increase is named on stderr ("v4l2_fps: sequence ..."); more frames than sequence
 * numbers is an error.
 *
 *   v4l2_fps DEVICE FORMAT WIDTH HEIGHT FRAMES TIMEOUT_S counter
 *
 * checks the frame counter hil's cameras put in each frame (hil/tools/uvc_frames.h: the first 4 bytes of
 * a YUYV frame, the "hil frame N" comment of a JPEG). The driver numbers frames as they start on the wire
 * (dropped ones too), the camera as it sends them: in a whole frame the counter minus the sequence number
 * is the same all run long, whatever order the driver hands the buffers back in (uvcvideo finishes bulk
 * frames on worker threads, so two can swap). A frame where it differs is corrupt; stderr gets
 * "v4l2_fps counters first=F last=L" before the summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>

#define NBUFS 4
#define FORMAT_RETRIES 2 /* VIDIOC_S_FMT asked again after a control request lost on the wire */

static int fd;

static int xioctl(unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret < 0 && errno == EINTR);
	return ret;
}

static int number(const char *text, unsigned long max, unsigned long *value)
{
	char *end;

	errno = 0;
	*value = strtoul(text, &end, 10);
	return errno || *end || end == text || *value == 0 || *value > max ? -1 : 0;
}

/* The frame counter of hil's cameras in a good frame, or -1 when it has none. */
static long long frame_counter(const uint8_t *p, size_t n, int mjpeg)
{
	uint32_t c;
	size_t i;

	if (!mjpeg) {
		if (n < sizeof(c))
			return -1;
		memcpy(&c, p, sizeof(c));
		return c;
	}
	for (i = 0; i + 15 <= n && i < 64; i++)
		if (!memcmp(p + i, "hil frame ", 10)) {
			char digits[6];

			memcpy(digits, p + i + 10, 5);
			digits[5] = 0;
			return strtoll(digits, NULL, 10);
		}
	return -1;
}

static int corrupt_frame(const uint8_t *p, const struct v4l2_buffer *b, int mjpeg, int h264, size_t expected)
{
	if (b->flags & V4L2_BUF_FLAG_ERROR)
		return 1;
	if (!mjpeg && !h264)
		return b->bytesused != expected;
	if (b->bytesused < 4)
		return 1;
	if (h264)
		return !(p[0] == 0 && p[1] == 0 && (p[2] == 1 || (p[2] == 0 && p[3] == 1)));
	return !(p[0] == 0xff && p[1] == 0xd8 && p[b->bytesused - 2] == 0xff && p[b->bytesused - 1] == 0xd9);
}

int main(int argc, char **argv)
{
	unsigned long width, height, frames, timeout_s;
	struct v4l2_format fmt = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
	struct v4l2_requestbuffers req = {.count = NBUFS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP};
	void *start[NBUFS];
	size_t length[NBUFS];
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	uint32_t pixfmt, first_seq = 0, last_seq = 0;
	uint64_t first_us = 0, last_us = 0, bytes = 0;
	unsigned long got = 0, dropped = 0, corrupt = 0;
	size_t expected;
	unsigned int i, n, tries;
	int mjpeg, h264, counters = argc == 8 && !strcmp(argv[7], "counter");
	long long first_counter = -1, last_counter = -1, offset = 0;

	if ((argc != 7 && !counters) ||
	    (strcmp(argv[2], "yuyv") && strcmp(argv[2], "mjpeg") && strcmp(argv[2], "h264")) ||
	    (counters && !strcmp(argv[2], "h264")) ||
	    number(argv[3], 16384, &width) || number(argv[4], 16384, &height) ||
	    number(argv[5], 10000000, &frames) || frames < 2 || number(argv[6], 3600, &timeout_s)) {
		fprintf(stderr, "usage: %s DEVICE yuyv|mjpeg|h264 WIDTH HEIGHT FRAMES(>=2) TIMEOUT_S [counter]\n",
			argv[0]);
		return 2;
	}
	mjpeg = !strcmp(argv[2], "mjpeg");
	h264 = !strcmp(argv[2], "h264");
	pixfmt = mjpeg ? V4L2_PIX_FMT_MJPEG : h264 ? V4L2_PIX_FMT_H264 : V4L2_PIX_FMT_YUYV;
	expected = (size_t)width * height * 2;
	fd = open(argv[1], O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "v4l2_fps: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* uvcvideo sets a format with the camera's probe control requests; one lost on the wire (a timeout or a
	 * stall: EIO, ETIMEDOUT, EPIPE) is asked again, at most FORMAT_RETRIES times, each named on stderr. */
	for (tries = 0;; tries++) {
		fmt.fmt.pix.width = width;
		fmt.fmt.pix.height = height;
		fmt.fmt.pix.pixelformat = pixfmt;
		fmt.fmt.pix.field = V4L2_FIELD_ANY;
		if (xioctl(VIDIOC_S_FMT, &fmt) == 0)
			break;
		if (tries == FORMAT_RETRIES || (errno != EIO && errno != ETIMEDOUT && errno != EPIPE)) {
			perror("v4l2_fps: VIDIOC_S_FMT");
			return 1;
		}
		fprintf(stderr, "v4l2_fps: VIDIOC_S_FMT: %s: asked again\n", strerror(errno));
	}
	/* A driver adjusts what it cannot do; measuring another format would be measuring something else. */
	if (fmt.fmt.pix.width != width || fmt.fmt.pix.height != height || fmt.fmt.pix.pixelformat != pixfmt) {
		fprintf(stderr, "v4l2_fps: %s gave %ux%u %.4s instead of %lux%lu %s\n", argv[1], fmt.fmt.pix.width,
			fmt.fmt.pix.height, (const char *)&fmt.fmt.pix.pixelformat, width, height, argv[2]);
		return 1;
	}
	if (xioctl(VIDIOC_REQBUFS, &req) < 0 || req.count < 2) {
		perror("v4l2_fps: VIDIOC_REQBUFS");
		return 1;
	}
	n = req.count < NBUFS ? req.count : NBUFS;
	for (i = 0; i < n; i++) {
		struct v4l2_buffer b = {.type = type, .memory = V4L2_MEMORY_MMAP, .index = i};

		if (xioctl(VIDIOC_QUERYBUF, &b) < 0) {
			perror("v4l2_fps: VIDIOC_QUERYBUF");
			return 1;
		}
		length[i] = b.length;
		start[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
		if (start[i] == MAP_FAILED) {
			perror("v4l2_fps: mmap");
			return 1;
		}
		if (xioctl(VIDIOC_QBUF, &b) < 0) {
			perror("v4l2_fps: VIDIOC_QBUF");
			return 1;
		}
	}
	if (xioctl(VIDIOC_STREAMON, &type) < 0) {
		perror("v4l2_fps: VIDIOC_STREAMON");
		return 1;
	}
	while (got < frames) {
		struct v4l2_buffer b = {.type = type, .memory = V4L2_MEMORY_MMAP};
		struct timeval tv = {.tv_sec = (time_t)timeout_s};
		fd_set rd;
		uint64_t us;
		int r;

		FD_ZERO(&rd);
		FD_SET(fd, &rd);
		r = select(fd + 1, &rd, NULL, NULL, &tv);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			perror("v4l2_fps: select");
			return 1;
		}
		if (r == 0) {
			fprintf(stderr, "v4l2_fps: no frame within %lu s after %lu frames\n", timeout_s, got);
			return 1;
		}
		if (xioctl(VIDIOC_DQBUF, &b) < 0) {
			if (errno == EAGAIN)
				continue;
			perror("v4l2_fps: VIDIOC_DQBUF");
			return 1;
		}
		us = (uint64_t)b.timestamp.tv_sec * 1000000u + (uint64_t)b.timestamp.tv_usec;
		if (got == 0) {
			first_us = us;
			first_seq = b.sequence;
		} else if ((int32_t)(b.sequence - last_seq) < 1) {
			fprintf(stderr, "v4l2_fps: sequence %u after %u (frame %lu)\n", b.sequence, last_seq, got);
		}
		last_us = us;
		last_seq = b.sequence;
		if (corrupt_frame(start[b.index], &b, mjpeg, h264, expected)) {
			corrupt++;
		} else if (counters) {
			long long c = frame_counter(start[b.index], b.bytesused, mjpeg);

			if (first_counter < 0 && c >= 0) {
				first_counter = c;
				offset = c - b.sequence;
			}
			if (c < 0 || c - b.sequence != offset) {
				fprintf(stderr, "v4l2_fps: frame %lu (sequence %u) carries counter %lld, expected %lld\n",
					got, b.sequence, c, b.sequence + offset);
				corrupt++;
			} else {
				last_counter = c;
			}
		}
		bytes += b.bytesused;
		got++;
		if (xioctl(VIDIOC_QBUF, &b) < 0) {
			perror("v4l2_fps: VIDIOC_QBUF");
			return 1;
		}
	}
	xioctl(VIDIOC_STREAMOFF, &type);
	for (i = 0; i < n; i++)
		munmap(start[i], length[i]);
	close(fd);
	if ((uint32_t)(last_seq - first_seq) + 1ull < got) {
		fprintf(stderr, "v4l2_fps: %lu frames carry only %u sequence numbers (%u..%u)\n", got,
			last_seq - first_seq + 1, first_seq, last_seq);
		return 1;
	}
	dropped = (uint32_t)(last_seq - first_seq) + 1ul - got;
	if (counters)
		fprintf(stderr, "v4l2_fps counters first=%lld last=%lld\n", first_counter, last_counter);
	if (last_us <= first_us) {
		fprintf(stderr, "v4l2_fps: timestamps do not advance (first %llu us, last %llu us)\n",
			(unsigned long long)first_us, (unsigned long long)last_us);
		return 1;
	}
	printf("v4l2_fps format=%s width=%lu height=%lu frames=%lu span_us=%llu fps=%.3f dropped=%lu corrupt=%lu "
	       "bytes=%llu first_seq=%u last_seq=%u\n",
	       argv[2], width, height, got, (unsigned long long)(last_us - first_us),
	       (double)(got - 1) * 1e6 / (double)(last_us - first_us), dropped, corrupt, (unsigned long long)bytes,
	       first_seq, last_seq);
	return 0;
}
