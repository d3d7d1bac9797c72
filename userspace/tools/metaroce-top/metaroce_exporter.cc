// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// metaroce-exporter: the telemetry of metaroce-top as a Prometheus target.
//
//   metaroce-exporter [--listen ADDR:PORT] [-t SYSTEM] [--sysfs DIR] [--once]
//
// Serves GET /metrics (text exposition format 0.0.4) on --listen (default
// 127.0.0.1:9966; an IPv6 address in brackets, [::1]:9966): per path of
// every connection the BPF program heard from (state, port, RTTs, windows,
// packet counters, loss and mark fractions, labels dev, qpn, path), per
// connection its window, and the device counters of every metaroce device
// (the hw_counters `rdma statistic show link` prints, from --sysfs,
// default /sys/class/infiniband). --once prints the page and exits.
//
// One client at a time, with short timeouts: a scraper that stalls or
// sends garbage gets an error or is dropped, nothing else.
//
// Needs root (BPF, tracefs) and the metaroce module loaded.

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "figures.h"
#include "telemetry.h"

using namespace mrc_telem;

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

void usage() {
  std::fprintf(stderr,
               "usage: metaroce-exporter [--listen ADDR:PORT] [-t SYSTEM] [--sysfs DIR] "
               "[--once]\n");
}

// "127.0.0.1:9966", "[::1]:9966", ":9966" (every IPv4 address)
bool parse_listen(const std::string &s, sockaddr_storage *ss, socklen_t *len) {
  const auto colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = s.substr(0, colon);
  char *end;
  const unsigned long port = std::strtoul(s.c_str() + colon + 1, &end, 10);
  if (*end || colon + 1 == s.size() || port > 65535) return false;
  std::memset(ss, 0, sizeof(*ss));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    auto *a6 = reinterpret_cast<sockaddr_in6 *>(ss);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(uint16_t(port));
    *len = sizeof(*a6);
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &a6->sin6_addr) == 1;
  }
  auto *a4 = reinterpret_cast<sockaddr_in *>(ss);
  a4->sin_family = AF_INET;
  a4->sin_port = htons(uint16_t(port));
  *len = sizeof(*a4);
  if (host.empty()) return true;
  return inet_pton(AF_INET, host.c_str(), &a4->sin_addr) == 1;
}

bool send_all(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

void reply(int fd, const char *status, const char *type, const std::string &body) {
  std::string head = std::string("HTTP/1.0 ") + status + "\r\nContent-Type: " + type +
                     "\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\nConnection: close\r\n\r\n";
  if (send_all(fd, head)) send_all(fd, body);
}

// Reads the request head (bounded in size and time); its first line.
bool read_request_line(int fd, std::string *line) {
  std::string req;
  char buf[1024];
  while (req.find("\r\n\r\n") == std::string::npos && req.find("\n\n") == std::string::npos) {
    if (req.size() > 8192) return false;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    req.append(buf, size_t(n));
  }
  *line = req.substr(0, req.find_first_of("\r\n"));
  return true;
}

class Exporter {
 public:
  Exporter(Session &s, std::string sysfs) : s_(s), sysfs_(std::move(sysfs)) {}

  std::string page() {
    const auto paths = rates_.sample(s_.paths(), mono_ns());
    return to_prom(by_connection(paths), read_dev_counters(sysfs_), s_.events_lost());
  }

  void serve(int cfd) {
    const timeval tv{2, 0};
    setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    std::string line;
    if (!read_request_line(cfd, &line)) return;
    if (line.rfind("GET ", 0) != 0) {
      reply(cfd, "405 Method Not Allowed", "text/plain", "GET only\n");
      return;
    }
    const std::string target = line.substr(4, line.find(' ', 4) - 4);
    if (target == "/metrics" || target.rfind("/metrics?", 0) == 0)
      reply(cfd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", page());
    else if (target == "/")
      reply(cfd, "200 OK", "text/plain", "metaroce-exporter: see /metrics\n");
    else
      reply(cfd, "404 Not Found", "text/plain", "not found\n");
  }

 private:
  Session &s_;
  std::string sysfs_;
  Rates rates_;
};

}  // namespace

int main(int argc, char **argv) {
  std::string listen_at = "127.0.0.1:9966", system = "metaroce", sysfs = "/sys/class/infiniband";
  bool once = false;
  static const option longopts[] = {{"listen", required_argument, nullptr, 'l'},
                                    {"sysfs", required_argument, nullptr, 'S'},
                                    {"once", no_argument, nullptr, '1'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "l:t:h", longopts, nullptr)) != -1) {
    switch (opt) {
      case 'l': listen_at = optarg; break;
      case 't': system = optarg; break;
      case 'S': sysfs = optarg; break;
      case '1': once = true; break;
      default: usage(); return opt == 'h' ? 0 : 2;
    }
  }
  sockaddr_storage ss;
  socklen_t sslen;
  if (optind != argc || !parse_listen(listen_at, &ss, &sslen)) {
    usage();
    return 2;
  }

  Session s;
  if (!s.open("metaroce-exporter", system, nullptr)) return 1;
  Exporter ex(s, sysfs);
  if (once) {
    std::fputs(ex.page().c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }

  const int lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      bind(lfd, reinterpret_cast<sockaddr *>(&ss), sslen) != 0 || listen(lfd, 16) != 0) {
    std::fprintf(stderr, "metaroce-exporter: listening on %s: %s\n", listen_at.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr, "metaroce-exporter: serving http://%s/metrics\n", listen_at.c_str());
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: poll() returns on a signal
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  while (!g_stop) {
    pollfd p{lfd, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    const int cfd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (cfd < 0) continue;
    ex.serve(cfd);
    close(cfd);
  }
  close(lfd);
  return 0;
}
