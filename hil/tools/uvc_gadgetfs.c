/*
 * A UVC 1.0 camera that streams over a bulk endpoint, written on GadgetFS (legacy/inode.c).
 *
 *   uvc_gadgetfs DIR UDC FORMAT WIDTH HEIGHT MAXPAYLOAD SERIAL
 *
 * DIR is a mounted gadgetfs (mount -t gadgetfs gadgetfs DIR), UDC the controller it must bind to (as
 * /sys/class/udc names it), FORMAT yuyv or mjpeg with one frame size WIDTH x HEIGHT, MAXPAYLOAD the
 * dwMaxPayloadTransferSize it offers (rounded down to whole packets and to 32 packets, what uvcvideo puts
 * in one bulk URB), SERIAL the serial number string the host sees.
 *
 * Why GadgetFS: mainline f_uvc streams isochronously only, and a virtual UDC (dummy_hcd) has no
 * isochronous endpoints; FunctionFS refuses class-specific descriptors. GadgetFS takes the whole
 * configuration descriptor as written and hands every request it does not know to this program: the
 * VideoControl interface (camera input terminal without controls, output terminal), the VideoStreaming
 * interface (alt 0, one bulk IN endpoint, one format, one frame) and the probe/commit controls are all
 * here. GadgetFS binds at high speed at most (max_speed in inode.c), so a super-speed link carries it
 * at high speed.
 *
 * Frames (uvc_frames.h) are not paced. Each one goes out as payloads of dwMaxPayloadTransferSize bytes
 * with a 2-byte header (FID toggling per frame, EOF on the last payload); uvcvideo ends a bulk payload
 * on a short packet or once it holds dwMaxPayloadTransferSize bytes, so a frame's last payload must not
 * be a whole number of packets unless it is full: then its header is 12 bytes (no PTS/SCR flags) instead.
 * A SET_CUR of the probe control stops the stream (the host is starting a new session: with dummy_hcd the
 * device never sees the STREAMOFF's CLEAR_FEATURE(HALT)); the commit starts it again with a new frame.
 *
 * Refuses a UDC that another gadget driver holds. Closing ep0 (exit, even a crash) releases the UDC.
 * Prints "uvc_gadgetfs ready UDC" once bound, "uvc_gadgetfs connected SPEED" (and "disconnected",
 * "suspended": a bus reset or suspend, each also part of a normal enumeration), "uvc_gadgetfs streaming
 * FORMAT WxH payload=N" on each commit, and on SIGTERM/SIGINT "uvc_gadgetfs aborted_requests=N
 * lost_requests=M" (see recover() and events()) and "uvc_gadgetfs frames=N" (whole frames the UDC took)
 * before exiting 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/gadgetfs.h>
#include <linux/usb/video.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvc_frames.h"

#define CHUNK_PAYLOADS 16     /* payloads per write(): one kernel buffer of at most 256 KiB */
#define URB_PACKETS 32	      /* uvcvideo's UVC_MAX_PACKETS: the packets one bulk URB holds */
#define VC_INTERFACE 0
#define VS_INTERFACE 1
#define OUTPUT_TERMINAL 2
#define STRING_MANUFACTURER 1
#define STRING_PRODUCT 2
#define STRING_SERIAL 3
/* The most a data stage read takes: one byte short of an event. Should gadgetfs have left the request's
 * data stage already (the host moved on, the link was reset), ep0_read() takes a longer read as a read of
 * the event queue and would swallow the next events (a SETUP among them left unanswered, which the next
 * read of events then stalls with EL2HLT); one this short is refused (EINVAL) instead. The data itself
 * does not matter here (see class_request). */
#define DATA_PEEK (sizeof(struct usb_gadgetfs_event) - 1)

static const char *dir, *udc, *serial;
static int mjpeg;
static unsigned int width, height, maxpayload;
static int ep0 = -1, ep_in = -1;
static char ep_name[64];
static unsigned int ep_address;
static enum usb_device_speed speed;
static unsigned int payload; /* dwMaxPayloadTransferSize at the connected speed */
static volatile sig_atomic_t stop;
static unsigned long aborted; /* requests gadgetfs aborted under this program (see recover) */
static unsigned long lost;    /* requests gadgetfs stalled because this program had not answered them */

/* The stream thread, driven by the ep0 thread through `want` and interrupted (SIGUSR1) out of write(). */
static pthread_t streamer;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int want, busy, quit;
static unsigned long long frames_sent;

static void on_signal(int sig)
{
	if (sig != SIGUSR1)
		stop = 1;
}

/* ---- descriptors ------------------------------------------------------------------------------- */

struct blob {
	uint8_t bytes[512];
	size_t n;
};

static void add(struct blob *b, const uint8_t *bytes, size_t n)
{
	memcpy(b->bytes + b->n, bytes, n);
	b->n += n;
}

static void le16(uint8_t *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
}

static size_t frame_bytes_max(void)
{
	return uvc_frame_bytes_max(mjpeg, width, height);
}

static void endpoint(uint8_t *d, unsigned int maxpacket)
{
	memset(d, 0, USB_DT_ENDPOINT_SIZE);
	d[0] = USB_DT_ENDPOINT_SIZE;
	d[1] = USB_DT_ENDPOINT;
	d[2] = ep_address;
	d[3] = USB_ENDPOINT_XFER_BULK;
	le16(d + 4, maxpacket);
}

/* The whole configuration at one speed: IAD, VideoControl, VideoStreaming with its bulk endpoint. */
static void configuration(struct blob *c, unsigned int maxpacket)
{
	static const uint8_t yuy2[16] = {'Y', 'U', 'Y', '2', 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71};
	uint8_t config[USB_DT_CONFIG_SIZE] = {USB_DT_CONFIG_SIZE, USB_DT_CONFIG, 0, 0, 2, 1, 0, 0x80, 50};
	const uint8_t iad[8] = {8, USB_DT_INTERFACE_ASSOCIATION, VC_INTERFACE, 2, USB_CLASS_VIDEO,
				UVC_SC_VIDEO_INTERFACE_COLLECTION, 0, 0};
	const uint8_t vc_if[9] = {9, USB_DT_INTERFACE, VC_INTERFACE, 0, 0, USB_CLASS_VIDEO, UVC_SC_VIDEOCONTROL, 0, 0};
	uint8_t vc_header[13] = {13, USB_DT_CS_INTERFACE, UVC_VC_HEADER, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 1,
				 VS_INTERFACE};
	uint8_t camera[18] = {18, USB_DT_CS_INTERFACE, UVC_VC_INPUT_TERMINAL, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			      3, 0, 0, 0};
	uint8_t output[9] = {9, USB_DT_CS_INTERFACE, UVC_VC_OUTPUT_TERMINAL, OUTPUT_TERMINAL, 0, 0, 0, 1, 0};
	const uint8_t vs_if[9] = {9, USB_DT_INTERFACE, VS_INTERFACE, 0, 1, USB_CLASS_VIDEO, UVC_SC_VIDEOSTREAMING,
				  0, 0};
	uint8_t vs_header[14] = {14, USB_DT_CS_INTERFACE, UVC_VS_INPUT_HEADER, 1, 0, 0, ep_address, 0,
				 OUTPUT_TERMINAL, 0, 0, 0, 1, 0};
	uint8_t format[27] = {0};
	uint8_t frame[30] = {0};
	const uint8_t color[6] = {6, USB_DT_CS_INTERFACE, UVC_VS_COLORFORMAT, 1, 1, 4};
	uint8_t ep[USB_DT_ENDPOINT_SIZE];
	size_t format_len = mjpeg ? 11 : 27;

	le16(vc_header + 5, sizeof(vc_header) + sizeof(camera) + sizeof(output));
	le32(vc_header + 7, 48000000);
	le16(camera + 4, UVC_ITT_CAMERA);
	le16(output + 4, UVC_TT_STREAMING);
	format[0] = format_len;
	format[1] = USB_DT_CS_INTERFACE;
	format[2] = mjpeg ? UVC_VS_FORMAT_MJPEG : UVC_VS_FORMAT_UNCOMPRESSED;
	format[3] = 1; /* bFormatIndex */
	format[4] = 1; /* bNumFrameDescriptors */
	if (mjpeg) {
		format[5] = 1; /* bmFlags: fixed size samples */
		format[6] = 1; /* bDefaultFrameIndex */
	} else {
		memcpy(format + 5, yuy2, sizeof(yuy2));
		format[21] = 16; /* bBitsPerPixel */
		format[22] = 1;	 /* bDefaultFrameIndex */
	}
	frame[0] = sizeof(frame);
	frame[1] = USB_DT_CS_INTERFACE;
	frame[2] = mjpeg ? UVC_VS_FRAME_MJPEG : UVC_VS_FRAME_UNCOMPRESSED;
	frame[3] = 1; /* bFrameIndex */
	le16(frame + 5, width);
	le16(frame + 7, height);
	le32(frame + 9, (uint32_t)(frame_bytes_max() * 8 * 30));  /* dwMinBitRate */
	le32(frame + 13, (uint32_t)(frame_bytes_max() * 8 * 30)); /* dwMaxBitRate */
	le32(frame + 17, (uint32_t)frame_bytes_max());		   /* dwMaxVideoFrameBufferSize */
	le32(frame + 21, FRAME_INTERVAL);			   /* dwDefaultFrameInterval */
	frame[25] = 1;						   /* one discrete interval */
	le32(frame + 26, FRAME_INTERVAL);
	le16(vs_header + 4, sizeof(vs_header) + format_len + sizeof(frame) + sizeof(color));
	endpoint(ep, maxpacket);

	c->n = 0;
	add(c, config, sizeof(config));
	add(c, iad, sizeof(iad));
	add(c, vc_if, sizeof(vc_if));
	add(c, vc_header, sizeof(vc_header));
	add(c, camera, sizeof(camera));
	add(c, output, sizeof(output));
	add(c, vs_if, sizeof(vs_if));
	add(c, vs_header, sizeof(vs_header));
	add(c, format, format_len);
	add(c, frame, sizeof(frame));
	add(c, color, sizeof(color));
	add(c, ep, sizeof(ep));
	le16(c->bytes + 2, c->n); /* wTotalLength */
}

static int write_descriptors(void)
{
	struct blob fs, hs;
	struct usb_device_descriptor device = {
		.bLength = USB_DT_DEVICE_SIZE,
		.bDescriptorType = USB_DT_DEVICE,
		.bcdUSB = 0x0200,
		.bDeviceClass = USB_CLASS_MISC, /* with an IAD: class EF, subclass 2, protocol 1 */
		.bDeviceSubClass = 2,
		.bDeviceProtocol = 1,
		.idVendor = 0x1d6b,  /* Linux Foundation */
		.idProduct = 0x0102, /* its "webcam gadget" id, as g_webcam */
		.bcdDevice = 0x0100,
		.iManufacturer = STRING_MANUFACTURER,
		.iProduct = STRING_PRODUCT,
		.iSerialNumber = STRING_SERIAL,
		.bNumConfigurations = 1,
	};
	uint8_t buf[4 + 2 * sizeof(fs.bytes) + USB_DT_DEVICE_SIZE];
	size_t n = 4;
	ssize_t written;

	configuration(&fs, 64);
	configuration(&hs, 512);
	memset(buf, 0, 4); /* message tag 0: the device's descriptors */
	memcpy(buf + n, fs.bytes, fs.n);
	n += fs.n;
	memcpy(buf + n, hs.bytes, hs.n);
	n += hs.n;
	memcpy(buf + n, &device, USB_DT_DEVICE_SIZE);
	n += USB_DT_DEVICE_SIZE;
	written = write(ep0, buf, n);
	if (written != (ssize_t)n) {
		fprintf(stderr, "uvc_gadgetfs: writing the descriptors to %s/%s: %s\n", dir, udc,
			written < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

static int string_descriptor(unsigned int index, uint8_t *out)
{
	const char *text;
	size_t i, n;

	if (index == 0) {
		out[0] = 4;
		out[1] = USB_DT_STRING;
		le16(out + 2, 0x0409);
		return 4;
	}
	switch (index) {
	case STRING_MANUFACTURER:
		text = "hil";
		break;
	case STRING_PRODUCT:
		text = "hil gadgetfs bulk camera";
		break;
	case STRING_SERIAL:
		text = serial;
		break;
	default:
		return -1;
	}
	n = strlen(text);
	if (n > 126)
		n = 126;
	out[0] = 2 + 2 * n;
	out[1] = USB_DT_STRING;
	for (i = 0; i < n; i++)
		le16(out + 2 + 2 * i, (unsigned char)text[i]);
	return out[0];
}

/* ---- the UDC ----------------------------------------------------------------------------------- */

static int read_attribute(const char *name, char *out, size_t room)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/udc/%s/%s", udc, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(out, room, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return 0;
}

/* The ep0 file gadgetfs made (named after the controller's driver) and the first bulk IN endpoint name
 * the controller will offer: dummy_udc's "ep1in-bulk", or a plain "ep1in". */
static int find_ep0(char *path, size_t room)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d) {
		fprintf(stderr, "uvc_gadgetfs: %s: %s (mount -t gadgetfs gadgetfs %s)\n", dir, strerror(errno), dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (found++ == 0 && (size_t)snprintf(path, room, "%s/%s", dir, e->d_name) >= room)
			found = -100; /* a path too long to hold */
	}
	closedir(d);
	if (found != 1) {
		fprintf(stderr, "uvc_gadgetfs: %s holds %d files, expected only the ep0 file of a fresh gadgetfs mount\n",
			dir, found);
		return -1;
	}
	snprintf(ep_name, sizeof(ep_name), strstr(path, "dummy_udc") ? "ep1in-bulk" : "ep1in");
	ep_address = USB_DIR_IN | 1;
	return 0;
}

static int udc_free(void)
{
	char function[128], state[64];

	if (read_attribute("state", state, sizeof(state)) < 0) {
		fprintf(stderr, "uvc_gadgetfs: no UDC %s in /sys/class/udc\n", udc);
		return 0;
	}
	if (read_attribute("function", function, sizeof(function)) == 0 && function[0]) {
		fprintf(stderr, "uvc_gadgetfs: UDC %s is in use by \"%s\": remove that gadget first\n", udc, function);
		return 0;
	}
	return 1;
}

/* gadgetfs binds to the first free controller: make sure that is the one asked for. */
static int bound_to_udc(void)
{
	char function[128];

	if (read_attribute("function", function, sizeof(function)) < 0 || strcmp(function, "USB Gadget filesystem")) {
		fprintf(stderr, "uvc_gadgetfs: gadgetfs did not bind to %s (its function: \"%s\")\n", udc, function);
		return 0;
	}
	return 1;
}

/* ---- streaming ----------------------------------------------------------------------------------- */

static unsigned int packet_size(void)
{
	return speed == USB_SPEED_HIGH ? 512 : 64;
}

/* One frame as payloads, each headed by its header; the frame's content in `content`. */
static size_t payloads(uint8_t *out, const uint8_t *content, size_t n, int fid)
{
	size_t data = payload - 2, at = 0, off = 0;

	while (off < n) {
		size_t chunk = n - off < data ? n - off : data;
		int last = off + chunk == n;
		size_t header = 2;

		if (last && chunk + header < payload && (chunk + header) % packet_size() == 0)
			header = 12; /* a short payload of whole packets would run into the next one */
		memset(out + at, 0, header);
		out[at] = header;
		out[at + 1] = UVC_STREAM_EOH | (fid ? UVC_STREAM_FID : 0) | (last ? UVC_STREAM_EOF : 0);
		memcpy(out + at + header, content + off, chunk);
		at += header + chunk;
		off += chunk;
	}
	return at;
}

static void *stream(void *arg)
{
	size_t room = frame_bytes_max();
	size_t wire_room = room + (room / 64 + 1) * 12;
	uint8_t *content = malloc(room), *wire = malloc(wire_room);
	uint32_t counter = 0;
	int fid = 0;

	(void)arg;
	if (!content || !wire) {
		fprintf(stderr, "uvc_gadgetfs: out of memory for a frame\n");
		exit(1);
	}
	pthread_mutex_lock(&lock);
	for (;;) {
		size_t n, total, at = 0;
		int whole = 1;

		busy = 0;
		pthread_cond_broadcast(&changed);
		while (!want && !quit)
			pthread_cond_wait(&changed, &lock);
		if (quit)
			break;
		busy = 1;
		pthread_mutex_unlock(&lock);

		n = uvc_frame(content, room, mjpeg, width, height, ++counter);
		fid = !fid;
		total = payloads(wire, content, n, fid);
		while (at < total) {
			size_t len = total - at < (size_t)CHUNK_PAYLOADS * payload ? total - at : (size_t)CHUNK_PAYLOADS * payload;
			ssize_t sent = write(ep_in, wire + at, len);

			if (sent < 0) {
				/* EINTR: the ep0 thread stopped us; ESHUTDOWN/ENODEV: disconnected. */
				if (errno != EINTR && errno != ESHUTDOWN && errno != ENODEV && errno != ECONNRESET)
					fprintf(stderr, "uvc_gadgetfs: writing %s: %s\n", ep_name, strerror(errno));
				whole = 0;
				break;
			}
			at += (size_t)sent;
		}
		pthread_mutex_lock(&lock);
		if (whole)
			frames_sent++;
		else
			want = 0; /* wait for the next commit */
	}
	pthread_mutex_unlock(&lock);
	free(content);
	free(wire);
	return NULL;
}

static void stream_stop(void)
{
	pthread_mutex_lock(&lock);
	want = 0;
	while (busy) {
		struct timespec until;

		pthread_kill(streamer, SIGUSR1); /* out of a blocking write(): gadgetfs dequeues the request */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 10 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&changed, &lock, &until);
	}
	pthread_mutex_unlock(&lock);
}

static void stream_start(void)
{
	pthread_mutex_lock(&lock);
	want = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	printf("uvc_gadgetfs streaming %s %ux%u payload=%u\n", mjpeg ? "mjpeg" : "yuyv", width, height, payload);
	fflush(stdout);
}

static void endpoint_disable(void)
{
	stream_stop();
	if (ep_in >= 0)
		close(ep_in);
	ep_in = -1;
}

static int endpoint_enable(void)
{
	char path[256];
	uint8_t config[4 + 2 * USB_DT_ENDPOINT_SIZE] = {1, 0, 0, 0}; /* message tag 1: endpoint descriptors */

	endpoint_disable();
	snprintf(path, sizeof(path), "%s/%s", dir, ep_name);
	ep_in = open(path, O_RDWR);
	if (ep_in < 0) {
		fprintf(stderr, "uvc_gadgetfs: %s: %s\n", path, strerror(errno));
		return -1;
	}
	endpoint(config + 4, 64);
	endpoint(config + 4 + USB_DT_ENDPOINT_SIZE, 512);
	if (write(ep_in, config, sizeof(config)) != (ssize_t)sizeof(config)) {
		fprintf(stderr, "uvc_gadgetfs: enabling %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- ep0 ------------------------------------------------------------------------------------------ */

static void recover(void);

static void stall(const struct usb_ctrlrequest *req)
{
	uint8_t data[DATA_PEEK];

	/* gadgetfs stalls on the "wrong direction": read for an IN request, write for an OUT one. An OUT
	 * request with a data stage cannot be stalled (gadgetfs has taken its data already): drop the data. */
	ssize_t done;

	if (!(req->bRequestType & USB_DIR_IN) && req->wLength)
		done = read(ep0, data, sizeof(data));
	else if (req->bRequestType & USB_DIR_IN)
		done = read(ep0, NULL, 0);
	else
		done = write(ep0, NULL, 0);
	if (done < 0 && errno == EIDRM)
		recover();
	else if (done < 0 && errno != EL2HLT && errno != EINVAL)
		perror("uvc_gadgetfs: stalling ep0");
}

static void ack(void)
{
	if (read(ep0, NULL, 0) >= 0)
		return;
	if (errno == EIDRM)
		recover();
	else
		perror("uvc_gadgetfs: ack on ep0");
}

static void reply(const struct usb_ctrlrequest *req, const void *data, size_t n)
{
	if (n > req->wLength)
		n = req->wLength;
	if (write(ep0, data, n) >= 0)
		return;
	if (errno == EIDRM)
		recover();
	else if (errno != EINVAL) /* a second answer to a request already answered by recover() */
		perror("uvc_gadgetfs: ep0 reply");
}

/*
 * gadgetfs takes the OUT data of a control request before this program sees the request, so the host may
 * send its next request before this program has read (or answered) the current one: uvcvideo follows a
 * probe SET_CUR with GET_MIN, GET_MAX or GET_CUR at once. Then gadgetfs aborts what this program was doing
 * (EIDRM) and holds ep0 in the new request's setup state, without a way to read which request that is (a
 * read would stall it). Every GET of the probe and commit controls has one answer here (one format, one
 * frame, one interval), so that answer goes out blindly; should the new request be an OUT one instead
 * (the write fails with ESRCH), its data stage is read (DATA_PEEK: ESRCH also means no request is pending
 * at all). The new request's event, still queued, is answered again when read: gadgetfs refuses the second
 * answer or dummy_hcd drops it as stale at the next setup.
 */
static void recover(void)
{
	struct uvc_streaming_control ctrl;
	uint8_t data[DATA_PEEK];
	int tries;

	aborted++;
	uvc_fill_control(&ctrl, frame_bytes_max(), payload);
	for (tries = 0; tries < 8; tries++) {
		if (write(ep0, &ctrl, sizeof(ctrl)) >= 0)
			return;
		if (errno == ESRCH && read(ep0, data, sizeof(data)) >= 0)
			return;
		if (errno != EIDRM && errno != ESRCH) {
			perror("uvc_gadgetfs: ep0 after an aborted request");
			return;
		}
	}
}

/* The OUT data stage of a SET_CUR (see recover), read and dropped. EINVAL or ECANCELED: gadgetfs has left
 * the data stage already (the host moved on or the link was reset). */
static void set_cur_data(void)
{
	uint8_t data[DATA_PEEK];

	if (read(ep0, data, sizeof(data)) >= 0)
		return;
	if (errno == EIDRM)
		recover();
	else if (errno != EINVAL && errno != ECANCELED)
		perror("uvc_gadgetfs: SET_CUR data stage");
}

static int class_request(const struct usb_ctrlrequest *req)
{
	unsigned int selector = req->wValue >> 8;
	struct uvc_streaming_control ctrl;
	uint8_t data[64];

	if ((req->wIndex & 0xff) != VS_INTERFACE ||
	    (selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL)) {
		stall(req);
		return 0;
	}
	switch (req->bRequest) {
	case UVC_SET_CUR:
		/* What the host proposes does not matter: one format, one frame, one interval exist. */
		set_cur_data();
		stream_stop(); /* any probe starts a new session; the commit (re)starts the stream */
		if (selector == UVC_VS_COMMIT_CONTROL) {
			if (ep_in < 0) {
				fprintf(stderr, "uvc_gadgetfs: commit before SET_CONFIGURATION\n");
				return 0;
			}
			stream_start();
		}
		return 0;
	case UVC_GET_CUR:
	case UVC_GET_MIN:
	case UVC_GET_MAX:
	case UVC_GET_DEF:
		uvc_fill_control(&ctrl, frame_bytes_max(), payload);
		reply(req, &ctrl, sizeof(ctrl));
		if (selector == UVC_VS_PROBE_CONTROL)
			stream_stop(); /* the probe's own SET_CUR may have been lost (see set_cur_data) */
		return 0;
	case UVC_GET_RES:
		memset(&ctrl, 0, sizeof(ctrl));
		reply(req, &ctrl, sizeof(ctrl));
		return 0;
	case UVC_GET_LEN:
		le16(data, sizeof(ctrl));
		reply(req, data, 2);
		return 0;
	case UVC_GET_INFO:
		data[0] = 0x03; /* supports GET and SET */
		reply(req, data, 1);
		return 0;
	}
	stall(req);
	return 0;
}

static int setup(const struct usb_ctrlrequest *req)
{
	uint8_t data[256];
	int n;

	if ((req->bRequestType & USB_TYPE_MASK) == USB_TYPE_CLASS)
		return class_request(req);
	if ((req->bRequestType & USB_TYPE_MASK) != USB_TYPE_STANDARD) {
		stall(req);
		return 0;
	}
	switch (req->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		if ((req->wValue >> 8) == USB_DT_STRING && (n = string_descriptor(req->wValue & 0xff, data)) > 0) {
			reply(req, data, n);
			return 0;
		}
		break;
	case USB_REQ_SET_CONFIGURATION:
		/* gadgetfs accepted it already; it must be acked, never stalled. */
		if (req->wValue & 0xff) {
			if (endpoint_enable() < 0) {
				ack();
				return -1;
			}
		} else {
			endpoint_disable();
		}
		ack();
		return 0;
	case USB_REQ_SET_INTERFACE:
		if (req->wValue == 0 && (req->wIndex == VC_INTERFACE || req->wIndex == VS_INTERFACE)) {
			ack(); /* alternate setting 0 is the only one */
			return 0;
		}
		break;
	case USB_REQ_GET_INTERFACE:
		data[0] = 0;
		reply(req, data, 1);
		return 0;
	}
	stall(req);
	return 0;
}

static int events(void)
{
	struct usb_gadgetfs_event ev[5];
	ssize_t got = read(ep0, ev, sizeof(ev));
	size_t i;

	if (got < 0) {
		if (errno == EIDRM) {
			recover();
			return 0;
		}
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		if (errno == EL2HLT) {
			/* A request was still waiting for this program's answer (it was lost in a recovery):
			 * gadgetfs has stalled it. The host sees one failed request; the camera goes on. */
			lost++;
			fprintf(stderr, "uvc_gadgetfs: ep0 had an unanswered request: gadgetfs stalled it\n");
			return 0;
		}
		perror("uvc_gadgetfs: reading ep0 events");
		return -1;
	}
	if (got % sizeof(ev[0])) /* an OUT request's data stage, not events: its request was lost; dropped */
		return 0;
	for (i = 0; i < (size_t)got / sizeof(ev[0]); i++) {
		switch (ev[i].type) {
		case GADGETFS_CONNECT: {
			unsigned int packet;

			speed = ev[i].u.speed;
			packet = packet_size();
			payload = maxpayload < URB_PACKETS * packet ? maxpayload : URB_PACKETS * packet;
			payload -= payload % packet;
			if (payload < packet)
				payload = packet;
			printf("uvc_gadgetfs connected %s\n", speed == USB_SPEED_HIGH   ? "high"
							     : speed == USB_SPEED_FULL ? "full"
										       : "other");
			fflush(stdout);
			break;
		}
		case GADGETFS_DISCONNECT: /* also a bus reset: the host enumerates again */
			endpoint_disable();
			printf("uvc_gadgetfs disconnected\n");
			fflush(stdout);
			break;
		case GADGETFS_SUSPEND:
			printf("uvc_gadgetfs suspended\n");
			fflush(stdout);
			break;
		case GADGETFS_SETUP:
			if (setup(&ev[i].u.setup) < 0)
				return -1;
			break;
		default:
			break;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: signals end blocking I/O */
	char path[256];
	sigset_t blocked;
	int failed = 0;

	if (argc != 8 || (strcmp(argv[3], "yuyv") && strcmp(argv[3], "mjpeg")) || uvc_dimension(argv[4], &width) ||
	    uvc_dimension(argv[5], &height) || uvc_dimension(argv[6], &maxpayload) || !argv[7][0]) {
		fprintf(stderr, "usage: %s DIR UDC yuyv|mjpeg WIDTH HEIGHT MAXPAYLOAD SERIAL\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	udc = argv[2];
	mjpeg = !strcmp(argv[3], "mjpeg");
	serial = argv[7];
	payload = maxpayload;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	if (!udc_free() || find_ep0(path, sizeof(path)) < 0)
		return 1;
	ep0 = open(path, O_RDWR);
	if (ep0 < 0) {
		fprintf(stderr, "uvc_gadgetfs: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (write_descriptors() < 0)
		return 1;
	if (!bound_to_udc())
		return 1; /* closing ep0 on exit unregisters gadgetfs, wherever it went */
	/* The stream thread takes SIGUSR1 only: SIGTERM must end the ep0 thread's read(). */
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGINT);
	pthread_sigmask(SIG_BLOCK, &blocked, NULL);
	if (pthread_create(&streamer, NULL, stream, NULL)) {
		fprintf(stderr, "uvc_gadgetfs: no stream thread\n");
		return 1;
	}
	pthread_sigmask(SIG_UNBLOCK, &blocked, NULL);
	/* ep0 must read a SET_CUR's data before the host's next request arrives (see set_cur_data):
	 * this thread runs before the frame copying and the host's own work. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0 ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &(struct sched_param){.sched_priority = 10}))
		fprintf(stderr, "uvc_gadgetfs: no realtime priority for ep0 (%s): control requests may be lost\n",
			strerror(errno));
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &blocked, NULL);
	printf("uvc_gadgetfs ready %s\n", udc);
	fflush(stdout);
	while (!stop && !failed)
		failed = events() < 0;
	endpoint_disable();
	pthread_mutex_lock(&lock);
	quit = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	pthread_join(streamer, NULL);
	close(ep0);
	printf("uvc_gadgetfs aborted_requests=%lu lost_requests=%lu\n", aborted, lost);
	printf("uvc_gadgetfs frames=%llu\n", frames_sent);
	return failed;
}
