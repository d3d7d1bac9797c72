// SPDX-License-Identifier: GPL-2.0
/*
 * bed-client: the host side of `bed exec`: run one command in a guest through
 * its bed-agent, stream stdout/stderr, exit with the command's status.
 *
 *   bed-client -p PORT -k TOKEN [-i] [-t] [-C DIR] [-e K=V]... -- CMD [ARG]...
 *   bed-client --free-port        print a free TCP port on 127.0.0.1
 *
 * -i forwards stdin (otherwise the command reads /dev/null, so a loop that
 * reads its own stdin is never eaten), -t runs the command on a pseudo
 * terminal with the local terminal in raw mode (interactive shells).
 * Exit status 255 means the guest could not be reached.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "bed-io.h"

static struct termios saved_tio;
static int raw_mode;
static volatile sig_atomic_t winch;

static void restore_tty(void)
{
	if (raw_mode)
		tcsetattr(0, TCSAFLUSH, &saved_tio);
}

/* Requests are assembled in memory and sent with one write. */
struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(255);
	}
	memcpy(b->p + b->len, d, len);
	b->len += len;
}

static void put_u32(struct buf *b, uint32_t v)
{
	v = htonl(v);
	put(b, &v, 4);
}

static void put_str(struct buf *b, const char *s)
{
	put_u32(b, strlen(s));
	put(b, s, strlen(s));
}

static void send_winsz(int sock)
{
	struct winsize ws;
	uint16_t v[2];

	if (ioctl(0, TIOCGWINSZ, &ws))
		return;
	v[0] = htons(ws.ws_row);
	v[1] = htons(ws.ws_col);
	send_frame(sock, BED_WINSZ, v, 4);
}

static void on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(s, (struct sockaddr *)&sa, &len))
		return 1;
	printf("%d\n", ntohs(sa.sin_port));
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *token = "", *cwd = "/";
	const char *envs[256];
	int nenv = 0, port = 0, fwd_stdin = 0, pty = 0, sock, one = 1, i, opt;
	int stdin_open;
	struct buf req = { 0 };

	if (argc == 2 && !strcmp(argv[1], "--free-port"))
		return free_port();
	while ((opt = getopt(argc, argv, "+p:k:itC:e:")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'k':
			token = optarg;
			break;
		case 'i':
			fwd_stdin = 1;
			break;
		case 't':
			pty = 1;
			break;
		case 'C':
			cwd = optarg;
			break;
		case 'e':
			if (nenv < 256)
				envs[nenv++] = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!port || optind >= argc)
		goto usage;

	sock = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "bed: cannot reach the guest agent on 127.0.0.1:%d: %s\n",
			port, strerror(errno));
		return 255;
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	signal(SIGPIPE, SIG_IGN);

	put(&req, BED_MAGIC, 4);
	put_u32(&req, (fwd_stdin || pty ? BED_F_STDIN : 0) | (pty ? BED_F_PTY : 0));
	put_str(&req, token);
	put_str(&req, cwd);
	if (pty && getenv("TERM") && nenv < 256) {
		static char term[128];

		snprintf(term, sizeof(term), "TERM=%s", getenv("TERM"));
		envs[nenv++] = term;	/* the guest's shell should know our terminal */
	}
	put_u32(&req, nenv);
	for (i = 0; i < nenv; i++)
		put_str(&req, envs[i]);
	put_u32(&req, argc - optind);
	for (i = optind; i < argc; i++)
		put_str(&req, argv[i]);
	if (write_all(sock, req.p, req.len)) {
		fprintf(stderr, "bed: guest agent closed the connection\n");
		return 255;
	}

	if (pty && isatty(0)) {
		struct termios tio;

		tcgetattr(0, &saved_tio);
		tio = saved_tio;
		cfmakeraw(&tio);
		tcsetattr(0, TCSAFLUSH, &tio);
		raw_mode = 1;
		atexit(restore_tty);
		signal(SIGWINCH, on_winch);
		send_winsz(sock);
	}

	stdin_open = fwd_stdin || pty;
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = sock, .events = POLLIN },
			{ .fd = 0, .events = POLLIN },
		};
		unsigned char hdr[5];
		char data[65536];
		uint32_t len;

		if (winch) {
			winch = 0;
			send_winsz(sock);
		}
		if (poll(p, stdin_open ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (stdin_open && p[1].revents) {
			ssize_t n = read(0, data, sizeof(data));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				stdin_open = 0;
				n = 0;
			}
			if (send_frame(sock, BED_STDIN, data, n))
				break;
		}
		if (!p[0].revents)
			continue;
		if (read_all(sock, hdr, 5))
			break;
		memcpy(&len, hdr + 1, 4);
		len = ntohl(len);
		if (len > sizeof(data) || read_all(sock, data, len))
			break;
		switch (hdr[0]) {
		case BED_STDOUT:
			if (write_all(1, data, len))
				stdin_open = 0;	/* our reader left; keep draining */
			break;
		case BED_STDERR:
		case BED_ERROR:
			write_all(2, data, len);
			break;
		case BED_EXIT:
			if (len == 4) {
				uint32_t st;

				memcpy(&st, data, 4);
				return ntohl(st) & 0xff;
			}
			break;
		}
	}
	restore_tty();
	fprintf(stderr, "\r\nbed: lost the connection to the guest\n");
	return 255;

usage:
	fprintf(stderr, "usage: bed-client -p PORT [-k TOKEN] [-i] [-t] [-C DIR] [-e K=V]... -- CMD...\n");
	return 255;
}
