/*
 * udp_loopback ADDRESS PORT REPLICATION: a cellular modem in loopback mode, for the virtual lab (seed 004).
 *
 * A modem put in loopback (Quectel's loopback_config.txt, REP_FACTOR) sends every datagram the board sends
 * it back to the board, REPLICATION times, with the addresses swapped: iperf 2's client sends to the
 * modem's ADDRESS:PORT from the board's address:P, and the board's iperf 2 server (listening on PORT)
 * receives the copies from ADDRESS:P. So each client stream stays a stream of its own at the server.
 *
 * iperf 2 marks a stream's end with negative datagram ids; those are sent back once, as the server ends
 * the stream on the first (a real modem's copies of them only make the server print its report again).
 * Anything arriving on the per-stream sockets (the server's report to the client) is dropped, as it is in
 * a modem whose loopback only reflects what comes from the board's side.
 *
 * Prints "udp_loopback: reflecting ADDRESS:PORT xREPLICATION" once listening; on SIGTERM or SIGINT,
 * "udp_loopback: received N datagrams, sent M copies, K send errors" and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_STREAMS 64

static volatile sig_atomic_t stopping;

static void on_signal(int signum) {
    (void)signum;
    stopping = 1;
}

struct stream {
    uint16_t port; /* the board's source port: the copies come from ADDRESS:port */
    int fd;
    unsigned long long used; /* when it last reflected (a datagram count): the oldest makes room */
};

static int bound_socket(struct in_addr address, uint16_t port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = address};
    if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static long number(const char *text, long low, long high, const char *what) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *end || value < low || value > high) {
        fprintf(stderr, "udp_loopback: %s must be %ld..%ld, got '%s'\n", what, low, high, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: udp_loopback ADDRESS PORT REPLICATION\n");
        return 2;
    }
    struct in_addr address;
    if (inet_pton(AF_INET, argv[1], &address) != 1) {
        fprintf(stderr, "udp_loopback: '%s' is not an IPv4 address\n", argv[1]);
        return 2;
    }
    uint16_t port = (uint16_t)number(argv[2], 1, 65535, "PORT");
    long replication = number(argv[3], 1, 1000, "REPLICATION");

    struct sigaction action = {.sa_handler = on_signal}; /* no SA_RESTART: recvfrom returns EINTR */
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    int listener = bound_socket(address, port);
    if (listener < 0) {
        fprintf(stderr, "udp_loopback: cannot listen on %s:%u: %s\n", argv[1], port, strerror(errno));
        return 1;
    }
    printf("udp_loopback: reflecting %s:%u x%ld\n", argv[1], port, replication);
    fflush(stdout);

    static char datagram[65536];
    struct stream streams[MAX_STREAMS];
    int count = 0;
    unsigned long long received = 0, sent = 0, errors = 0;
    while (!stopping) {
        struct sockaddr_in board;
        socklen_t length = sizeof board;
        ssize_t size = recvfrom(listener, datagram, sizeof datagram, 0, (struct sockaddr *)&board, &length);
        if (size < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "udp_loopback: receive failed: %s\n", strerror(errno));
            return 1;
        }
        received++;
        uint16_t source = ntohs(board.sin_port);
        struct stream *stream = NULL;
        for (int i = 0; i < count && !stream; i++)
            if (streams[i].port == source)
                stream = &streams[i];
        if (!stream) {
            /* A run's streams come and go (each iperf run has new client ports): past MAX_STREAMS, the
             * one that reflected longest ago gives its place. */
            if (count < MAX_STREAMS) {
                stream = &streams[count++];
            } else {
                stream = &streams[0];
                for (int i = 1; i < count; i++)
                    if (streams[i].used < stream->used)
                        stream = &streams[i];
                close(stream->fd);
            }
            int fd = bound_socket(address, source);
            if (fd < 0) {
                fprintf(stderr, "udp_loopback: cannot send from port %u: %s\n", source, strerror(errno));
                return 1;
            }
            *stream = (struct stream){source, fd, 0};
        }
        stream->used = received;
        int fd = stream->fd;
        int32_t id = 0;
        if (size >= 4) {
            memcpy(&id, datagram, 4);
            id = (int32_t)ntohl((uint32_t)id);
        }
        struct sockaddr_in back = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = board.sin_addr};
        for (long copy = 0; copy < (id < 0 ? 1 : replication); copy++) {
            if (sendto(fd, datagram, (size_t)size, 0, (struct sockaddr *)&back, sizeof back) == size)
                sent++;
            else
                errors++;
        }
    }
    printf("udp_loopback: received %llu datagrams, sent %llu copies, %llu send errors\n", received, sent, errors);
    return 0;
}
