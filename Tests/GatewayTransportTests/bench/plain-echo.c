/* plain-echo: a trivial single-threaded epoll TCP echo, the backend behind nginx in the
 * transport benchmark (nginx terminates TLS and proxies plain TCP here).
 *   plain-echo PORT        listens on 127.0.0.1:PORT until SIGTERM */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: plain-echo PORT\n"); return 64; }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 4096) != 0) {
        perror("plain-echo: listen");
        return 1;
    }
    int poller = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event events[256];
    static char buffer[65536];
    for (;;) {
        int count = epoll_wait(poller, events, 256, -1);
        if (count < 0 && errno == EINTR) continue;
        for (int i = 0; i < count; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                for (;;) {
                    int client = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
                    if (client < 0) break;
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event add = {.events = EPOLLIN, .data.fd = client};
                    epoll_ctl(poller, EPOLL_CTL_ADD, client, &add);
                }
                continue;
            }
            ssize_t n = read(fd, buffer, sizeof buffer);
            if (n <= 0) {
                if (n < 0 && errno == EAGAIN) continue;
                close(fd);
                continue;
            }
            /* Echo with a blocking-style retry: replies are small (request/response). */
            ssize_t off = 0;
            while (off < n) {
                ssize_t w = write(fd, buffer + off, (size_t)(n - off));
                if (w < 0) { if (errno == EAGAIN) continue; close(fd); break; }
                off += w;
            }
        }
    }
}
