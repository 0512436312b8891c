// Linux system calls that Glibc does not export to Swift: epoll, eventfd,
// timerfd, signalfd, accept4, plus small helpers. Each is a thin `rg_` wrapper
// compiled in shim.c (with _GNU_SOURCE) so that Swift sees a plain prototype.
#ifndef CGATEWAY_LINUX_H
#define CGATEWAY_LINUX_H

#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/socket.h>

/// One readiness event, unpacked (the kernel's struct epoll_event is packed
/// on x86_64, which Swift imports awkwardly).
typedef struct rg_epoll_event {
    uint32_t events;
    uint64_t data;
} rg_epoll_event;

// epoll
int rg_epoll_create(void);
int rg_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for events and copies them into `out` (at most `max`). Returns the
/// count, or -1 with errno set (EINTR is returned, not retried).
int rg_epoll_wait(int epfd, rg_epoll_event *out, int max, int timeout_ms);

extern const int RG_EPOLL_CTL_ADD;
extern const int RG_EPOLL_CTL_MOD;
extern const int RG_EPOLL_CTL_DEL;
extern const uint32_t RG_EPOLLIN;
extern const uint32_t RG_EPOLLOUT;
extern const uint32_t RG_EPOLLERR;
extern const uint32_t RG_EPOLLHUP;
extern const uint32_t RG_EPOLLRDHUP;
extern const uint32_t RG_EPOLLET;
extern const uint32_t RG_EPOLLONESHOT;

// eventfd: non-blocking, close-on-exec.
int rg_eventfd(unsigned int initial);
int rg_eventfd_write(int fd, uint64_t value);
int rg_eventfd_read(int fd, uint64_t *value);

// timerfd on CLOCK_MONOTONIC: non-blocking, close-on-exec.
int rg_timerfd_create(void);
/// Arms a one-shot timer `nanoseconds` from now (0 disarms).
int rg_timerfd_arm_oneshot(int fd, int64_t nanoseconds);
int rg_timerfd_read(int fd, uint64_t *expirations);

// signalfd: blocks `signals` in the calling thread and returns a descriptor
// that reads them. Block them in every thread (call before spawning threads).
int rg_signalfd(const int *signals, int count);
/// Reads one pending signal number from a signalfd, 0 if none, -1 on error.
int rg_signalfd_read(int fd);
/// Blocks the given signals in the calling thread (threads created later inherit it).
int rg_block_signals(const int *signals, int count);

/// Installs a handler for `signals` that writes each one's number to a pipe, and returns
/// the pipe's read end (blocking, close-on-exec). Unlike a signalfd it needs no mask in any
/// thread, so it survives runtimes that reset the main thread's mask. Call once per process.
int rg_signal_pipe(const int *signals, int count);
/// pipe2(ends, O_CLOEXEC): a pipe whose ends no forked child keeps past exec. 0, or -1 with errno.
int rg_pipe_cloexec(int ends[2]);
/// Blocks until a signal arrives on a pipe from `rg_signal_pipe`; its number, or -1.
int rg_signal_pipe_read(int fd);

// Sockets
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int rg_accept4_nonblocking(int fd, struct sockaddr *addr, socklen_t *len);
/// A non-blocking, close-on-exec socket.
int rg_socket_nonblocking(int domain, int type, int protocol);
/// Bytes queued for reading on a socket (FIONREAD), or -1 with errno set.
int rg_socket_readable_bytes(int fd);
/// Copies up to `capacity` queued bytes without consuming them (recv with MSG_PEEK,
/// non-blocking): the count, 0 at end of stream, -1 with errno set (EAGAIN: nothing yet).
long rg_socket_peek(int fd, void *buffer, unsigned long capacity);

// Memory
/// Returns free memory at the top and in the middle of every malloc arena to the kernel
/// (glibc malloc_trim(0)); 1 if any was released.
int rg_malloc_trim(void);

// Process
/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit or -1.
long rg_raise_nofile_limit(void);
/// Asks the kernel to send `signal` to this process when its parent dies.
int rg_set_parent_death_signal(int signal);
/// Ignores SIGPIPE for the whole process.
void rg_ignore_sigpipe(void);
/// The kernel thread id of the caller.
int rg_gettid(void);

/// Starts `path` as a child process with fork and execve.
///
/// In the child, before exec: every signal disposition is reset and the signal
/// mask cleared (the parent may block SIGINT/SIGTERM for a signalfd), the child
/// gets its own session (a terminal's Ctrl-C reaches only the parent), standard
/// input is `input_fd` (/dev/null when -1), standard output goes to `output_fd`
/// (unchanged when -1) and standard error to `error_fd` (to `output_fd` when -1),
/// descriptors above 2 are closed, the credentials become `gid`/`uid`
/// when `uid` >= 0, and `parent_death_signal` (when > 0) is delivered to the
/// child when the *thread* that called this exits. `argv` and `envp` are
/// NULL-terminated. Returns the child's pid, or -1 with errno set.
pid_t rg_spawn(const char *path, char *const argv[], char *const envp[], int input_fd, int output_fd,
               int error_fd, int uid, int gid, int parent_death_signal);
/// Blocks until child `pid` exits (retrying on EINTR) and reaps it: `*status` = exit
/// code, or 128 + signal number. Returns `pid`, or -1 with errno set.
pid_t rg_waitpid_blocking(pid_t pid, int *status);
/// Whether a process with this pid exists (signal 0 succeeds or fails with EPERM).
int rg_process_exists(pid_t pid);
/// A descriptor that becomes readable when process `pid` exits (pidfd_open, close-on-exec),
/// or -1 with errno set (ESRCH: no such process).
int rg_pidfd_open(pid_t pid);

// inotify: non-blocking, close-on-exec.
int rg_inotify_init(void);
/// Watches directory `path` for entries created, written, renamed in or changed in their
/// attributes; the watch descriptor, or -1 with errno set.
int rg_inotify_watch_directory(int fd, const char *path);
/// Reads and discards every queued event; 0, or -1 with errno set (EAGAIN: none were queued).
int rg_inotify_drain(int fd);
/// Waits until one of `fds` is readable or `timeout_ms` passes (-1: no limit), retrying on
/// EINTR with the time left. Returns the index of the first readable descriptor, -1 on timeout,
/// -2 with errno set on failure.
int rg_wait_readable(const int *fds, int count, int timeout_ms);
// Transport helpers (GatewayTransport).
/// CLOCK_MONOTONIC in nanoseconds.
uint64_t rg_monotonic_nanoseconds(void);
/// Parses a numeric IPv4/IPv6 address (or "localhost") and port into `out`; 0 or -1.
int rg_make_sockaddr(const char *host, int port, struct sockaddr_storage *out, socklen_t *length);
/// Formats an address as "host:port" ("[v6]:port") into `buffer`; 0 or -1.
int rg_format_sockaddr(const struct sockaddr_storage *address, char *buffer, int capacity);
/// The port of an address, or -1.
int rg_sockaddr_port(const struct sockaddr_storage *address);
/// A listening TCP socket (non-blocking, SO_REUSEADDR, optional SO_REUSEPORT); fd or -1 (errno set).
int rg_tcp_listen(const struct sockaddr_storage *address, socklen_t length, int backlog, int reuse_port);
/// Starts a non-blocking TCP connect; fd or -1. `*in_progress` is 1 if EINPROGRESS.
int rg_tcp_connect(const struct sockaddr_storage *address, socklen_t length, int *in_progress);
/// `rg_tcp_connect` from a chosen local address (`local`, port 0 for any; NULL: the kernel's choice).
int rg_tcp_connect_from(const struct sockaddr_storage *address, socklen_t length, const struct sockaddr_storage *local, socklen_t local_length, int *in_progress);
/// The pending socket error (SO_ERROR), or errno if getsockopt fails.
int rg_socket_error(int fd);
/// Sets TCP_NODELAY; 0 or -1.
int rg_set_nodelay(int fd);
/// The local address of a socket; 0 or -1.
int rg_local_address(int fd, struct sockaddr_storage *out);
/// Sets SO_LINGER to zero so close() sends a reset; 0 or -1.
int rg_set_linger_zero(int fd);
/// Raises RLIMIT_NOFILE towards `wanted` (hard limit too where privileged); returns the new soft limit or -1.
long rg_raise_nofile_limit_to(long wanted);
/// The calling thread's errno.
int rg_errno(void);
/// Sets the calling thread's name (at most 15 characters).
void rg_set_thread_name(const char *name);

#endif
