#define _GNU_SOURCE
#include "CGatewayLinux.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sys/wait.h>
#include <stdio.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <malloc.h>
#include <poll.h>
#include <sys/inotify.h>

const int RG_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int RG_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
const int RG_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
const uint32_t RG_EPOLLIN = EPOLLIN;
const uint32_t RG_EPOLLOUT = EPOLLOUT;
const uint32_t RG_EPOLLERR = EPOLLERR;
const uint32_t RG_EPOLLHUP = EPOLLHUP;
const uint32_t RG_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t RG_EPOLLET = EPOLLET;
const uint32_t RG_EPOLLONESHOT = EPOLLONESHOT;

int rg_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int rg_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int rg_epoll_wait(int epfd, rg_epoll_event *out, int max, int timeout_ms) {
    enum { CHUNK = 256 };
    struct epoll_event raw[CHUNK];
    if (max > CHUNK) max = CHUNK;
    int n = epoll_wait(epfd, raw, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].events = raw[i].events;
        out[i].data = raw[i].data.u64;
    }
    return n;
}

int rg_eventfd(unsigned int initial) { return eventfd(initial, EFD_NONBLOCK | EFD_CLOEXEC); }
int rg_eventfd_write(int fd, uint64_t value) { return (int)write(fd, &value, sizeof value); }
int rg_eventfd_read(int fd, uint64_t *value) { return (int)read(fd, value, sizeof *value); }

int rg_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int rg_timerfd_arm_oneshot(int fd, int64_t nanoseconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (nanoseconds > 0) {
        spec.it_value.tv_sec = nanoseconds / 1000000000LL;
        spec.it_value.tv_nsec = nanoseconds % 1000000000LL;
    }
    return timerfd_settime(fd, 0, &spec, NULL);
}

int rg_timerfd_read(int fd, uint64_t *expirations) { return (int)read(fd, expirations, sizeof *expirations); }

static int fill_set(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) {
        if (sigaddset(set, signals[i]) != 0) return -1;
    }
    return 0;
}

int rg_block_signals(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    return pthread_sigmask(SIG_BLOCK, &set, NULL) == 0 ? 0 : -1;
}

int rg_signalfd(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int rg_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return -1;
}

static int signal_pipe_write_end = -1;

static void signal_pipe_handler(int signal) {
    int saved = errno;
    unsigned char number = (unsigned char)signal;
    ssize_t written = write(signal_pipe_write_end, &number, 1);
    (void)written; // a full pipe already holds a signal the reader has yet to see
    errno = saved;
}

int rg_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int rg_signal_pipe(const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    if (fcntl(ends[1], F_SETFL, O_NONBLOCK) != 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    signal_pipe_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = signal_pipe_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    if (pthread_sigmask(SIG_UNBLOCK, &set, NULL) != 0) return -1;
    return ends[0];
}

int rg_signal_pipe_read(int fd) {
    for (;;) {
        unsigned char number;
        ssize_t n = read(fd, &number, 1);
        if (n == 1) return (int)number;
        if (n < 0 && errno == EINTR) continue;
        return -1;
    }
}

int rg_accept4_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int rg_socket_nonblocking(int domain, int type, int protocol) {
    return socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
}

long rg_raise_nofile_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
            if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
        }
    }
    return (long)limit.rlim_cur;
}

int rg_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0); }

void rg_ignore_sigpipe(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    sigaction(SIGPIPE, &action, NULL);
}

int rg_gettid(void) { return (int)syscall(SYS_gettid); }

pid_t rg_spawn(const char *path, char *const argv[], char *const envp[], int input_fd, int output_fd,
               int error_fd, int uid, int gid, int parent_death_signal) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    /* Child: only async-signal-safe calls from here to execve. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &action, NULL);
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    setsid();
    if (input_fd >= 0) {
        dup2(input_fd, 0);
    } else {
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0 && null_fd != 0) { dup2(null_fd, 0); }
    }
    if (output_fd >= 0) dup2(output_fd, 1);
    if (error_fd >= 0) dup2(error_fd, 2);
    else if (output_fd >= 0) dup2(output_fd, 2);
    syscall(SYS_close_range, 3U, ~0U, 0U);
    if (uid >= 0) {
        gid_t group = (gid_t)gid;
        if (setgroups(1, &group) != 0 || setgid(group) != 0 || setuid((uid_t)uid) != 0) _exit(126);
    }
    if (parent_death_signal > 0) {
        if (prctl(PR_SET_PDEATHSIG, parent_death_signal, 0, 0, 0) != 0) _exit(126);
        if (getppid() != parent) _exit(126);
    }
    execve(path, argv, envp);
    _exit(127);
}

pid_t rg_waitpid_blocking(pid_t pid, int *status) {
    int raw = 0;
    pid_t result;
    do { result = waitpid(pid, &raw, 0); } while (result < 0 && errno == EINTR);
    if (result == pid && status != NULL) {
        if (WIFEXITED(raw)) *status = WEXITSTATUS(raw);
        else if (WIFSIGNALED(raw)) *status = 128 + WTERMSIG(raw);
        else *status = -1;
    }
    return result;
}

int rg_process_exists(pid_t pid) {
    if (pid <= 0) return 0;
    if (kill(pid, 0) == 0) return 1;
    return errno == EPERM;
}
uint64_t rg_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

int rg_make_sockaddr(const char *host, int port, struct sockaddr_storage *out, socklen_t *length) {
    memset(out, 0, sizeof *out);
    if (port < 0 || port > 65535) return -1;
    if (strcmp(host, "localhost") == 0) host = "127.0.0.1";
    struct sockaddr_in *v4 = (struct sockaddr_in *)out;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *length = sizeof *v4;
        return 0;
    }
    const char *h = host;
    char trimmed[64];
    size_t n = strlen(host);
    if (n > 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof trimmed) {
        memcpy(trimmed, host + 1, n - 2);
        trimmed[n - 2] = 0;
        h = trimmed;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
    if (inet_pton(AF_INET6, h, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *length = sizeof *v6;
        return 0;
    }
    return -1;
}

int rg_format_sockaddr(const struct sockaddr_storage *address, char *buffer, int capacity) {
    char host[INET6_ADDRSTRLEN];
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        if (!inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host)) return -1;
        snprintf(buffer, (size_t)capacity, "%s:%d", host, ntohs(v4->sin_port));
        return 0;
    }
    if (address->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        if (!inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host)) return -1;
        snprintf(buffer, (size_t)capacity, "[%s]:%d", host, ntohs(v6->sin6_port));
        return 0;
    }
    return -1;
}

int rg_sockaddr_port(const struct sockaddr_storage *address) {
    if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return -1;
}

int rg_tcp_listen(const struct sockaddr_storage *address, socklen_t length, int backlog, int reuse_port) {
    int fd = socket(address->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) goto fail;
    if (address->ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)address, length) != 0) goto fail;
    if (listen(fd, backlog) != 0) goto fail;
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int rg_tcp_connect(const struct sockaddr_storage *address, socklen_t length, int *in_progress) {
    return rg_tcp_connect_from(address, length, NULL, 0, in_progress);
}

int rg_tcp_connect_from(const struct sockaddr_storage *address, socklen_t length, const struct sockaddr_storage *local, socklen_t local_length, int *in_progress) {
    *in_progress = 0;
    int fd = socket(address->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (local != NULL && bind(fd, (const struct sockaddr *)local, local_length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if (connect(fd, (const struct sockaddr *)address, length) != 0) {
        if (errno == EINPROGRESS) {
            *in_progress = 1;
            return fd;
        }
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int rg_socket_error(int fd) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
    return error;
}

int rg_set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int rg_local_address(int fd, struct sockaddr_storage *out) {
    socklen_t length = sizeof *out;
    return getsockname(fd, (struct sockaddr *)out, &length);
}

int rg_set_linger_zero(int fd) {
    struct linger linger = {1, 0};
    return setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
}

long rg_raise_nofile_limit_to(long wanted) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (wanted > 0 && (rlim_t)wanted > limit.rlim_max) {
        struct rlimit higher = { (rlim_t)wanted, (rlim_t)wanted };
        if (setrlimit(RLIMIT_NOFILE, &higher) == 0) return wanted;
    }
    return rg_raise_nofile_limit();
}

int rg_errno(void) { return errno; }

void rg_set_thread_name(const char *name) { pthread_setname_np(pthread_self(), name); }

int rg_socket_readable_bytes(int fd) {
    int count = 0;
    if (ioctl(fd, FIONREAD, &count) != 0) return -1;
    return count;
}

long rg_socket_peek(int fd, void *buffer, unsigned long capacity) {
    return (long)recv(fd, buffer, capacity, MSG_PEEK | MSG_DONTWAIT);
}

int rg_malloc_trim(void) { return malloc_trim(0); }

int rg_pidfd_open(pid_t pid) {
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

int rg_inotify_init(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }

int rg_inotify_watch_directory(int fd, const char *path) {
    return inotify_add_watch(fd, path, IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB);
}

int rg_inotify_drain(int fd) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int drained = -1;
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count > 0) { drained = 0; continue; }
        if (count < 0 && errno == EINTR) continue;
        return drained;
    }
}

int rg_wait_readable(const int *fds, int count, int timeout_ms) {
    struct pollfd polled[8];
    if (count < 1 || count > 8) { errno = EINVAL; return -2; }
    for (int i = 0; i < count; i++) { polled[i].fd = fds[i]; polled[i].events = POLLIN; polled[i].revents = 0; }
    uint64_t deadline = timeout_ms < 0 ? 0 : rg_monotonic_nanoseconds() + (uint64_t)timeout_ms * 1000000ULL;
    int remaining = timeout_ms;
    for (;;) {
        int ready = poll(polled, (nfds_t)count, remaining);
        if (ready > 0) {
            for (int i = 0; i < count; i++) if (polled[i].revents != 0) return i;
        }
        if (ready == 0) return -1;
        if (ready < 0 && errno != EINTR) return -2;
        if (timeout_ms >= 0) {
            uint64_t now = rg_monotonic_nanoseconds();
            if (now >= deadline) return -1;
            remaining = (int)((deadline - now + 999999ULL) / 1000000ULL);
        }
    }
}
