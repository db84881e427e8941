/*
 * Frame content of hil's UVC cameras (uvc_source.c for a configfs f_uvc gadget, uvc_gadgetfs.c for the
 * GadgetFS bulk camera), so the host can check every frame whichever camera sent it:
 *
 *   yuyv   WIDTH*HEIGHT*2 bytes; the first 4 bytes are the frame counter (little endian), the rest a
 *          pattern that moves with the counter.
 *   mjpeg  a real baseline JPEG of a flat grey picture, built here: greyscale, one Huffman code per
 *          table (DC difference 0, end of block), so every 8x8 block is 2 bits. It is far smaller than
 *          a camera's JPEG of a real scene (about 8 KiB at 1920x1080): the fps it gives is a
 *          transport figure, not one for a real sensor. A COM segment carries the frame counter.
 */
#ifndef HIL_UVC_FRAMES_H
#define HIL_UVC_FRAMES_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#define FRAME_INTERVAL 333333 /* 100 ns units: the 30 fps both cameras' descriptors declare */

/* A command-line size (width, height, payload): stored and 0 when it is decimal 1..65535, else -1. */
static inline int uvc_dimension(const char *text, unsigned int *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || end == text || v == 0 || v > 65535)
		return -1;
	*value = (unsigned int)v;
	return 0;
}

/* The one streaming control both cameras answer PROBE and COMMIT with: format 1, frame 1, 30 fps. */
static inline void uvc_fill_control(struct uvc_streaming_control *ctrl, size_t frame_bytes, unsigned int payload)
{
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->bmHint = 1;
	ctrl->bFormatIndex = 1;
	ctrl->bFrameIndex = 1;
	ctrl->dwFrameInterval = FRAME_INTERVAL;
	ctrl->dwMaxVideoFrameSize = frame_bytes;
	ctrl->dwMaxPayloadTransferSize = payload;
	ctrl->bmFramingInfo = 3;
	ctrl->bPreferedVersion = 1;
	ctrl->bMinVersion = 1;
	ctrl->bMaxVersion = 1;
}

/* The most bytes a frame takes: a YUYV frame exactly, a generous bound for the JPEG. */
static inline size_t uvc_frame_bytes_max(int mjpeg, unsigned int width, unsigned int height)
{
	return mjpeg ? (size_t)width * height / 2 + 4096 : (size_t)width * height * 2;
}

static inline size_t uvc_put(uint8_t *out, size_t at, const uint8_t *bytes, size_t n)
{
	memcpy(out + at, bytes, n);
	return at + n;
}

/* The JPEG of frame `number`, or 0 when it does not fit in `room` bytes. */
static inline size_t uvc_jpeg_frame(uint8_t *out, size_t room, unsigned int width, unsigned int height,
				    uint32_t number)
{
	static const uint8_t soi[] = {0xff, 0xd8};
	char text[16];
	uint8_t com[4 + 15]; /* "hil frame NNNNN", no terminating NUL in the file */
	uint8_t dqt[5 + 64];
	const uint8_t sof[] = {0xff, 0xc0, 0, 11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff,
			       1, 1, 0x11, 0};
	/* One code of length 1 in each table: DC category 0, AC symbol 0x00 (end of block). */
	static const uint8_t dht[] = {0xff, 0xc4, 0, 2 + 2 * 17 + 2,
				      0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				      0x10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t sos[] = {0xff, 0xda, 0, 8, 1, 1, 0x00, 0, 63, 0};
	static const uint8_t eoi[] = {0xff, 0xd9};
	size_t blocks = (size_t)((width + 7) / 8) * ((height + 7) / 8);
	size_t scan = (blocks * 2 + 7) / 8;
	size_t at = 0;

	if (sizeof(soi) + sizeof(com) + sizeof(dqt) + sizeof(sof) + sizeof(dht) + sizeof(sos) + scan +
		    sizeof(eoi) > room)
		return 0;
	at = uvc_put(out, at, soi, sizeof(soi));
	com[0] = 0xff;
	com[1] = 0xfe;
	com[2] = 0;
	com[3] = 2 + 15;
	snprintf(text, sizeof(text), "hil frame %5u", (unsigned int)(number % 100000));
	memcpy(com + 4, text, 15);
	at = uvc_put(out, at, com, sizeof(com));
	dqt[0] = 0xff;
	dqt[1] = 0xdb;
	dqt[2] = 0;
	dqt[3] = 67;
	dqt[4] = 0;
	memset(dqt + 5, 1, 64);
	at = uvc_put(out, at, dqt, sizeof(dqt));
	at = uvc_put(out, at, sof, sizeof(sof));
	at = uvc_put(out, at, dht, sizeof(dht));
	at = uvc_put(out, at, sos, sizeof(sos));
	/* Every block codes as "0" "0"; the last byte is padded with 1 bits, as the standard asks. */
	memset(out + at, 0, scan);
	if (blocks * 2 % 8)
		out[at + scan - 1] = (uint8_t)(0xff >> (blocks * 2 % 8));
	at += scan;
	return uvc_put(out, at, eoi, sizeof(eoi));
}

/* Frame `number` into `out` (`room` bytes): its length, or 0 when it does not fit. */
static inline size_t uvc_frame(uint8_t *out, size_t room, int mjpeg, unsigned int width, unsigned int height,
			       uint32_t number)
{
	size_t n = (size_t)width * height * 2;

	if (mjpeg)
		return uvc_jpeg_frame(out, room, width, height, number);
	if (n > room)
		return 0;
	memset(out, 0x80 + (number & 0x3f), n);
	memcpy(out, &number, sizeof(number));
	return n;
}

#endif
