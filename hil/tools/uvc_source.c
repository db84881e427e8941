/*
 * Frame source for a configfs UVC gadget (usb_f_uvc): the userspace half every UVC gadget needs.
 *
 *   uvc_source DEVICE FORMAT WIDTH HEIGHT MAXPAYLOAD
 *
 * DEVICE is the gadget's V4L2 output node, FORMAT yuyv or mjpeg; the gadget must declare exactly
 * that one format with that one frame size (format 1, frame 1). MAXPAYLOAD is what the probe control
 * announces as dwMaxPayloadTransferSize (the isochronous bytes per (micro)frame: streaming_maxpacket
 * times maxburst+1 at super speed); the host picks its alternate setting from it.
 *
 * It follows the structure of the mainline uvc-gadget tools (Documentation/usb/gadget_uvc.rst):
 * subscribe to the UVC events, answer the probe/commit class requests of the streaming interface,
 * stall everything addressed to the control interface (no camera controls), and on STREAMON queue
 * mmap buffers and refill each one as soon as the driver hands it back. Frames are not paced: the
 * host sees the highest frame rate the link and both drivers carry (what seed 000 tables 3-3..3-6
 * report), not the nominal frame interval.
 *
 * Frame content: uvc_frames.h (shared with uvc_gadgetfs.c).
 *
 * Prints "uvc_source ready DEVICE" once it listens for events, "uvc_source streaming" on STREAMON,
 * and on SIGTERM/SIGINT "uvc_source frames=N" (frames handed to the driver) before exiting 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/g_uvc.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>

#include "uvc_frames.h"

#define NBUFS 4

struct buffer {
	void *start;
	size_t length;
};

static volatile sig_atomic_t stop;
static int fd;
static int mjpeg;
static unsigned int width, height, maxpayload;
static struct buffer bufs[NBUFS];
static unsigned int nbufs;
static int streaming;
static uint32_t counter;
static unsigned long long frames_sent;
static int control_selector; /* the streaming control a SET_CUR is about to write */
static struct uvc_streaming_control probe, commit;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int xioctl(unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret < 0 && errno == EINTR);
	return ret;
}

static size_t frame_bytes_max(void)
{
	return uvc_frame_bytes_max(mjpeg, width, height);
}

static size_t fill(struct buffer *buf)
{
	counter++;
	return uvc_frame(buf->start, buf->length, mjpeg, width, height, counter);
}

/* ---- buffers ---------------------------------------------------------------------------------- */

static int queue(unsigned int index)
{
	struct v4l2_buffer b = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP, .index = index};

	b.bytesused = fill(&bufs[index]);
	if (b.bytesused == 0) {
		fprintf(stderr, "uvc_source: buffer %u too small for a frame\n", index);
		return -1;
	}
	if (xioctl(VIDIOC_QBUF, &b) < 0) {
		/* ENODEV: the host stopped streaming under us; the STREAMOFF event follows. */
		if (errno == ENODEV)
			return 0;
		perror("uvc_source: VIDIOC_QBUF");
		return -1;
	}
	frames_sent++;
	return 0;
}

static void stream_off(void)
{
	int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	struct v4l2_requestbuffers req = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};
	unsigned int i;

	if (!streaming)
		return;
	xioctl(VIDIOC_STREAMOFF, &type);
	for (i = 0; i < nbufs; i++)
		munmap(bufs[i].start, bufs[i].length);
	nbufs = 0;
	xioctl(VIDIOC_REQBUFS, &req);
	streaming = 0;
}

static int stream_on(void)
{
	int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	struct v4l2_requestbuffers req = {.count = NBUFS, .type = type, .memory = V4L2_MEMORY_MMAP};
	unsigned int i;

	if (xioctl(VIDIOC_REQBUFS, &req) < 0 || req.count < 2) {
		perror("uvc_source: VIDIOC_REQBUFS");
		return -1;
	}
	for (i = 0; i < req.count && i < NBUFS; i++) {
		struct v4l2_buffer b = {.type = type, .memory = V4L2_MEMORY_MMAP, .index = i};

		if (xioctl(VIDIOC_QUERYBUF, &b) < 0) {
			perror("uvc_source: VIDIOC_QUERYBUF");
			return -1;
		}
		bufs[i].length = b.length;
		bufs[i].start = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
		if (bufs[i].start == MAP_FAILED) {
			perror("uvc_source: mmap");
			return -1;
		}
		nbufs = i + 1;
	}
	streaming = 1;
	for (i = 0; i < nbufs; i++)
		if (queue(i) < 0)
			return -1;
	if (xioctl(VIDIOC_STREAMON, &type) < 0) {
		perror("uvc_source: VIDIOC_STREAMON");
		return -1;
	}
	printf("uvc_source streaming %s %ux%u\n", mjpeg ? "mjpeg" : "yuyv", width, height);
	fflush(stdout);
	return 0;
}

static int refill(void)
{
	struct v4l2_buffer b = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};

	if (xioctl(VIDIOC_DQBUF, &b) < 0) {
		if (errno == EAGAIN || errno == ENODEV)
			return 0;
		perror("uvc_source: VIDIOC_DQBUF");
		return -1;
	}
	return queue(b.index);
}

/* ---- UVC class requests -------------------------------------------------------------------- */

static void setup(const struct usb_ctrlrequest *req, struct uvc_request_data *resp)
{
	unsigned int selector = req->wValue >> 8;
	struct uvc_streaming_control *ctrl = (struct uvc_streaming_control *)resp->data;

	resp->length = -EL2HLT; /* stall, unless answered below */
	if ((req->bRequestType & USB_TYPE_MASK) != USB_TYPE_CLASS)
		return;
	/* Only the streaming interface's probe and commit controls exist here: f_uvc numbers the
	 * control interface 0 and the streaming interface 1 in a gadget with this one function. */
	if ((req->wIndex & 0xff) != 1 || (selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL))
		return;
	switch (req->bRequest) {
	case UVC_SET_CUR:
		control_selector = selector;
		resp->length = req->wLength;
		break;
	case UVC_GET_CUR:
		*ctrl = selector == UVC_VS_PROBE_CONTROL ? probe : commit;
		resp->length = req->wLength < sizeof(*ctrl) ? req->wLength : sizeof(*ctrl);
		break;
	case UVC_GET_MIN:
	case UVC_GET_MAX:
	case UVC_GET_DEF:
		uvc_fill_control(ctrl, frame_bytes_max(), maxpayload);
		resp->length = req->wLength < sizeof(*ctrl) ? req->wLength : sizeof(*ctrl);
		break;
	case UVC_GET_RES:
		memset(ctrl, 0, sizeof(*ctrl));
		resp->length = req->wLength < sizeof(*ctrl) ? req->wLength : sizeof(*ctrl);
		break;
	case UVC_GET_LEN:
		resp->data[0] = 0;
		resp->data[1] = sizeof(*ctrl);
		resp->length = 2;
		break;
	case UVC_GET_INFO:
		resp->data[0] = 0x03; /* supports GET and SET */
		resp->length = 1;
		break;
	}
}

static void data(const struct uvc_request_data *d)
{
	struct uvc_streaming_control *target = control_selector == UVC_VS_COMMIT_CONTROL ? &commit : &probe;
	struct uvc_streaming_control in;

	memset(&in, 0, sizeof(in));
	memcpy(&in, d->data, (size_t)d->length < sizeof(in) ? (size_t)d->length : sizeof(in));
	/* One format, one frame: whatever the host asks, the answer is what exists. */
	uvc_fill_control(target, frame_bytes_max(), maxpayload);
	if (in.dwFrameInterval)
		target->dwFrameInterval = in.dwFrameInterval;
}

static int event(void)
{
	struct v4l2_event ev;
	struct uvc_event *uvc = (struct uvc_event *)&ev.u.data;
	struct uvc_request_data resp;

	memset(&ev, 0, sizeof(ev));
	if (xioctl(VIDIOC_DQEVENT, &ev) < 0) {
		perror("uvc_source: VIDIOC_DQEVENT");
		return -1;
	}
	memset(&resp, 0, sizeof(resp));
	switch (ev.type) {
	case UVC_EVENT_CONNECT:
		return 0;
	case UVC_EVENT_DISCONNECT:
	case UVC_EVENT_STREAMOFF:
		stream_off();
		return 0;
	case UVC_EVENT_STREAMON:
		return stream_on();
	case UVC_EVENT_SETUP:
		setup(&uvc->req, &resp);
		break;
	case UVC_EVENT_DATA:
		data(&uvc->data);
		return 0;
	default:
		return 0;
	}
	if (xioctl(UVCIOC_SEND_RESPONSE, &resp) < 0) {
		perror("uvc_source: UVCIOC_SEND_RESPONSE");
		return -1;
	}
	return 0;
}

static int subscribe(void)
{
	static const unsigned int types[] = {UVC_EVENT_CONNECT, UVC_EVENT_DISCONNECT, UVC_EVENT_SETUP,
					     UVC_EVENT_DATA, UVC_EVENT_STREAMON, UVC_EVENT_STREAMOFF};
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct v4l2_event_subscription sub = {.type = types[i]};

		if (xioctl(VIDIOC_SUBSCRIBE_EVENT, &sub) < 0) {
			perror("uvc_source: VIDIOC_SUBSCRIBE_EVENT");
			return -1;
		}
	}
	return 0;
}

static int set_format(void)
{
	struct v4l2_format fmt = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT};

	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = mjpeg ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	fmt.fmt.pix.sizeimage = frame_bytes_max();
	if (xioctl(VIDIOC_S_FMT, &fmt) < 0) {
		perror("uvc_source: VIDIOC_S_FMT");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	int failed = 0;

	if (argc != 6 || (strcmp(argv[2], "yuyv") && strcmp(argv[2], "mjpeg")) || uvc_dimension(argv[3], &width) ||
	    uvc_dimension(argv[4], &height) || uvc_dimension(argv[5], &maxpayload)) {
		fprintf(stderr, "usage: %s DEVICE yuyv|mjpeg WIDTH HEIGHT MAXPAYLOAD\n", argv[0]);
		return 2;
	}
	mjpeg = !strcmp(argv[2], "mjpeg");
	fd = open(argv[1], O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "uvc_source: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	uvc_fill_control(&probe, frame_bytes_max(), maxpayload);
	uvc_fill_control(&commit, frame_bytes_max(), maxpayload);
	if (set_format() < 0 || subscribe() < 0)
		return 1;
	printf("uvc_source ready %s\n", argv[1]);
	fflush(stdout);
	while (!stop && !failed) {
		fd_set ev, wr;
		struct timeval tv = {.tv_sec = 1};
		int n;

		FD_ZERO(&ev);
		FD_ZERO(&wr);
		FD_SET(fd, &ev);
		if (streaming)
			FD_SET(fd, &wr);
		n = select(fd + 1, NULL, &wr, &ev, &tv);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("uvc_source: select");
			failed = 1;
			break;
		}
		if (FD_ISSET(fd, &ev) && event() < 0)
			failed = 1;
		if (streaming && FD_ISSET(fd, &wr) && refill() < 0)
			failed = 1;
	}
	stream_off();
	close(fd);
	printf("uvc_source frames=%llu\n", frames_sent);
	return failed;
}
