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

pid_t rg_spawn(const char *path, char *const argv[], char *const envp[], int output_fd,
               int uid, int gid, int parent_death_signal) {
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
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0 && null_fd != 0) { dup2(null_fd, 0); }
    if (output_fd >= 0) {
        dup2(output_fd, 1);
        dup2(output_fd, 2);
    }
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

pid_t rg_waitpid_nohang(pid_t pid, int *status) {
    int raw = 0;
    pid_t result = waitpid(pid, &raw, WNOHANG);
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
