// SPDX-License-Identifier: GPL-2.0
/*
 * bed-agent: runs commands in a bed guest on behalf of the host's bed-client.
 *
 * One process per connection: read the request, start the command in its
 * own session (pipes, or a pseudo terminal for interactive shells), relay
 * stdin/stdout/stderr as frames, and report the exit status once the command
 * has exited and its output is drained. Background children that keep the
 * pipes open do not hold the session: the session ends when the command
 * itself exits. A client that goes away takes the command's process group
 * with it, so a host-side timeout cleans up the guest as well.
 *
 * The listening socket is created inside a network namespace given with
 * --netns (the management NIC lives there) and the agent then returns to
 * the initial namespace, so commands run in the guest's real network.
 *
 * Built statically on the host (gcc -static) and copied into the initramfs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "bed-io.h"

static const char *token = "";

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int read_u32(int fd, uint32_t *v)
{
	if (read_all(fd, v, 4))
		return -1;
	*v = ntohl(*v);
	return 0;
}

static char *read_field(int fd)
{
	uint32_t len;
	char *s;

	if (read_u32(fd, &len) || len > BED_MAX_FIELD)
		return NULL;
	s = malloc(len + 1);
	if (!s || read_all(fd, s, len))
		return NULL;
	s[len] = 0;
	return s;
}

static char **read_list(int fd)
{
	uint32_t n, i;
	char **v;

	if (read_u32(fd, &n) || n > BED_MAX_ARGS)
		return NULL;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		v[i] = read_field(fd);
		if (!v[i])
			return NULL;
	}
	return v;
}

static void fail_session(int sock, const char *msg, uint32_t status)
{
	uint32_t be = htonl(status);

	send_frame(sock, BED_ERROR, msg, strlen(msg));
	send_frame(sock, BED_EXIT, &be, 4);
	exit(0);
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Forward whatever @fd has right now; returns 0 at EOF/EIO, -1 on socket loss. */
static int pump(int fd, int sock, int type)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return 0;	/* EOF, or EIO from a pty whose slave closed */
		if (send_frame(sock, type, buf, n))
			return -1;
	}
}

static void kill_and_exit(pid_t pid)
{
	int i;

	kill(-pid, SIGTERM);
	for (i = 0; i < 40; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		usleep(50000);
	}
	kill(-pid, SIGKILL);
	exit(0);
}

static void session(int sock)
{
	char magic[4], *tok, *cwd, **env, **argv;
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, in[2] = { -1, -1 };
	int master = -1, sfd, status = 0, exited = 0, sock_open = 1;
	int out_open, err_open;
	char pending[65536];
	size_t pend_len = 0, pend_off = 0;
	uint32_t flags;
	sigset_t mask;
	pid_t pid;

	alarm(30);	/* a request must arrive promptly */
	if (read_all(sock, magic, 4) || memcmp(magic, BED_MAGIC, 4) ||
	    read_u32(sock, &flags))
		exit(0);
	tok = read_field(sock);
	cwd = read_field(sock);
	env = read_list(sock);
	argv = read_list(sock);
	alarm(0);
	if (!tok || !cwd || !env || !argv)
		exit(0);
	if (strcmp(tok, token))
		fail_session(sock, "bed-agent: wrong token (another bed?)\n", 255);
	if (!argv[0])
		fail_session(sock, "bed-agent: empty command\n", 255);

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		fail_session(sock, "bed-agent: signalfd failed\n", 255);

	if (flags & BED_F_PTY) {
		pid = forkpty(&master, NULL, NULL, NULL);
	} else {
		if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
		    ((flags & BED_F_STDIN) && pipe2(in, O_CLOEXEC)))
			fail_session(sock, "bed-agent: pipe failed\n", 255);
		pid = fork();
	}
	if (pid < 0)
		fail_session(sock, "bed-agent: fork failed\n", 255);
	if (pid == 0) {
		char **e;

		sigprocmask(SIG_UNBLOCK, &mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (!(flags & BED_F_PTY)) {
			int nul = open("/dev/null", O_RDONLY);

			setsid();
			dup2(in[0] >= 0 ? in[0] : nul, 0);
			dup2(out[1], 1);
			dup2(err[1], 2);
		}
		clearenv();
		setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
		setenv("HOME", "/root", 1);
		setenv("TERM", "dumb", 1);
		setenv("USER", "root", 1);
		for (e = env; *e; e++)
			putenv(*e);
		if (chdir(cwd) && chdir("/"))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "bed-agent: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}

	if (flags & BED_F_PTY) {
		out[0] = master;
		if (flags & BED_F_STDIN)
			in[1] = master;
	} else {
		close(out[1]);
		close(err[1]);
		if (in[0] >= 0)
			close(in[0]);
	}
	out_open = 1;
	err_open = err[0] >= 0;
	set_nonblock(out[0]);
	if (err_open)
		set_nonblock(err[0]);
	if (in[1] >= 0 && in[1] != master)
		set_nonblock(in[1]);

	while (!exited || out_open || err_open) {
		struct pollfd p[5];
		int np = 0, isock = -1, iout = -1, ierr = -1, iin = -1, isig;

		p[np] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		isig = np++;
		if (sock_open && !pend_len) {
			p[np] = (struct pollfd){ .fd = sock, .events = POLLIN };
			isock = np++;
		}
		if (out_open) {
			p[np] = (struct pollfd){ .fd = out[0], .events = POLLIN };
			iout = np++;
		}
		if (err_open) {
			p[np] = (struct pollfd){ .fd = err[0], .events = POLLIN };
			ierr = np++;
		}
		if (pend_len && in[1] >= 0) {
			p[np] = (struct pollfd){ .fd = in[1], .events = POLLOUT };
			iin = np++;
		}
		if (exited) {
			/* The command is gone: forward what is buffered, then stop. */
			if (out_open && pump(out[0], sock, BED_STDOUT) < 0)
				exit(0);
			if (err_open && pump(err[0], sock, BED_STDERR) < 0)
				exit(0);
			break;
		}
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[isig].revents) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) > 0)
				;
			if (waitpid(pid, &status, WNOHANG) == pid)
				exited = 1;
		}
		if (iout >= 0 && p[iout].revents) {
			int r = pump(out[0], sock, BED_STDOUT);

			if (r < 0)
				kill_and_exit(pid);
			if (r == 0)
				out_open = 0;
		}
		if (ierr >= 0 && p[ierr].revents) {
			int r = pump(err[0], sock, BED_STDERR);

			if (r < 0)
				kill_and_exit(pid);
			if (r == 0)
				err_open = 0;
		}
		if (iin >= 0 && p[iin].revents) {
			ssize_t n = write(in[1], pending + pend_off, pend_len);

			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				pend_len = 0;	/* reader went away */
			} else if (n > 0) {
				pend_off += n;
				pend_len -= n;
			}
		}
		if (isock >= 0 && p[isock].revents) {
			unsigned char hdr[5];
			uint32_t len;

			if (read_all(sock, hdr, 5)) {
				sock_open = 0;
				kill_and_exit(pid);
			}
			memcpy(&len, hdr + 1, 4);
			len = ntohl(len);
			if (len > sizeof(pending) || read_all(sock, pending, len))
				kill_and_exit(pid);
			if (hdr[0] == BED_STDIN && len && in[1] >= 0) {
				pend_off = 0;
				pend_len = len;
			} else if (hdr[0] == BED_STDIN && !len && in[1] >= 0) {
				if (master >= 0) {
					char eof = 4;	/* ^D on the terminal */

					if (write(master, &eof, 1) < 0)
						break;
				} else {
					close(in[1]);
					in[1] = -1;
				}
			} else if (hdr[0] == BED_WINSZ && len == 4 && master >= 0) {
				struct winsize ws = { 0 };
				uint16_t v[2];

				memcpy(v, pending, 4);
				ws.ws_row = ntohs(v[0]);
				ws.ws_col = ntohs(v[1]);
				ioctl(master, TIOCSWINSZ, &ws);
			}
		}
	}
	if (!exited)
		waitpid(pid, &status, 0);
	{
		uint32_t code = WIFEXITED(status) ? WEXITSTATUS(status) :
				128 + WTERMSIG(status);
		uint32_t be = htonl(code);

		send_frame(sock, BED_EXIT, &be, 4);
	}
	shutdown(sock, SHUT_WR);
	exit(0);
}

static int listen_in(const char *netns, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int self = -1, ns, s, one = 1;

	if (netns) {
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		ns = open(netns, O_RDONLY | O_CLOEXEC);
		if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET))
			die("bed-agent: netns");
		close(ns);
	}
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("bed-agent: socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(port);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 64))
		die("bed-agent: bind/listen");
	if (netns && setns(self, CLONE_NEWNET))
		die("bed-agent: back to init netns");
	if (self >= 0)
		close(self);
	return s;
}

int main(int argc, char **argv)
{
	const char *netns = NULL;
	int port = 7, opt, s;

	while ((opt = getopt(argc, argv, "p:k:n:")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'k':
			token = optarg;
			break;
		case 'n':
			netns = optarg;
			break;
		default:
			fprintf(stderr, "usage: bed-agent [-p port] [-k token] [-n netns-file]\n");
			return 2;
		}
	}
	s = listen_in(netns, port);
	signal(SIGCHLD, SIG_IGN);	/* sessions reap themselves */
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC), one = 1;

		if (c < 0)
			continue;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(s);
			signal(SIGCHLD, SIG_DFL);
			session(c);
		}
		close(c);
	}
}
