/*
 * tcp_payload receive PORT FILE | tcp_payload send ADDRESS PORT FILE: one file over one TCP connection, every
 * byte, for the network gadgets' payload check (hil.measure.integrity.over_tcp). iperf3 --file cannot be that
 * check: over a slow link its sender shifts partly sent buffers and its receiver stops at the test's end, so
 * the bytes that arrive are not the file's (seen on the virtual lab's ECM gadget); busybox nc closes at its
 * input's end before the data is out.
 *
 * receive: listens on PORT (IPv4, any address), prints "tcp_payload: listening on PORT", takes one connection,
 * writes what arrives to FILE until the sender closes, prints "tcp_payload: received N bytes", exits 0.
 * send: connects, writes FILE whole, shuts its side down and waits for the receiver to close (so every byte
 * was read), prints "tcp_payload: sent N bytes", exits 0. Any failure: a message naming it, exit 1.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static int copy(int from, int to, long long *moved)
{
	static char buffer[65536];
	for (;;) {
		ssize_t got = read(from, buffer, sizeof buffer);
		if (got == 0)
			return 0;
		if (got < 0)
			return fail("tcp_payload: read");
		for (ssize_t done = 0; done < got;) {
			ssize_t put = write(to, buffer + done, got - done);
			if (put < 0)
				return fail("tcp_payload: write");
			done += put;
		}
		*moved += got;
	}
}

static int port_of(const char *text)
{
	char *end;
	long port = strtol(text, &end, 10);
	return (*end == '\0' && port > 0 && port < 65536) ? (int)port : -1;
}

int main(int argc, char **argv)
{
	long long moved = 0;
	struct sockaddr_in address = {.sin_family = AF_INET};
	if (argc == 4 && strcmp(argv[1], "receive") == 0 && port_of(argv[2]) > 0) {
		int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
		setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		address.sin_port = htons(port_of(argv[2]));
		if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0)
			return fail("tcp_payload: bind");
		if (listen(listener, 1) < 0)
			return fail("tcp_payload: listen");
		printf("tcp_payload: listening on %s\n", argv[2]);
		fflush(stdout);
		int connection = accept(listener, NULL, NULL);
		if (connection < 0)
			return fail("tcp_payload: accept");
		int file = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (file < 0)
			return fail("tcp_payload: open");
		if (copy(connection, file, &moved) != 0 || fsync(file) < 0 || close(file) < 0)
			return 1;
		close(connection);
		printf("tcp_payload: received %lld bytes\n", moved);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "send") == 0 && port_of(argv[3]) > 0) {
		if (inet_pton(AF_INET, argv[2], &address.sin_addr) != 1) {
			fprintf(stderr, "tcp_payload: %s is no IPv4 address\n", argv[2]);
			return 1;
		}
		address.sin_port = htons(port_of(argv[3]));
		int file = open(argv[4], O_RDONLY);
		if (file < 0)
			return fail("tcp_payload: open");
		int connection = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(connection, (struct sockaddr *)&address, sizeof address) < 0)
			return fail("tcp_payload: connect");
		if (copy(file, connection, &moved) != 0)
			return 1;
		if (shutdown(connection, SHUT_WR) < 0)
			return fail("tcp_payload: shutdown");
		char rest[1];
		if (read(connection, rest, sizeof rest) != 0) {  /* the receiver closes once it has read it all */
			fprintf(stderr, "tcp_payload: the receiver did not close after the file\n");
			return 1;
		}
		printf("tcp_payload: sent %lld bytes\n", moved);
		return 0;
	}
	fprintf(stderr, "usage: tcp_payload receive PORT FILE | tcp_payload send ADDRESS PORT FILE\n");
	return 2;
}
