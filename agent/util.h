/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_UTIL_H
#define ABLAB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* room for any integer of type t in decimal, its sign and the NUL (a byte: < 3 digits) */
#define DEC_LEN(t) (3 * sizeof(t) + 2)

/* Messages: "ablab: ..." on stderr.  Progress lines go to stderr too, so that
 * stdout carries only the requested output (reports, JSON). */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int verbose;

/* The one error-text carrier.  A layer that fails (console, power, boot, target, bench,
 * a backend's parser) says why in a struct errtext: one sentence naming the board, the
 * file or field and the fix; the command that called it prints it once.  The library
 * never prints its own errors and never exits.  errtext_set() returns ret, so that
 * `return errtext_set(e, -EINVAL, "...")` reports and returns in one statement. */
#define ERRTEXT_LEN 512
struct errtext {
	char msg[ERRTEXT_LEN];
};
int errtext_set(struct errtext *e, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int errtext_vset(struct errtext *e, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Puts "PREFIX: " before the message already there (context added by a caller). */
void errtext_prefix(struct errtext *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void errtext_clear(struct errtext *e)
{
	e->msg[0] = '\0';
}
static inline bool errtext_isset(const struct errtext *e)
{
	return e->msg[0] != '\0';
}

/* The first SIGINT/SIGTERM/SIGHUP sets stop_requested (its number): every
 * wait loop checks it and the command winds down, switching its boards off.
 * A power-off runs to completion after it (within its own deadline); a
 * further signal while one runs sets off_aborted, which aborts the power-offs
 * running then and later (the board may stay on: callers say so). */
extern volatile sig_atomic_t stop_requested;
extern volatile sig_atomic_t off_aborted;
void install_signal_handlers(void);
/* Brackets a power-off in the calling thread (the signal handler sees it). */
void power_off_begin(void);
void power_off_end(void);
bool in_power_off(void);
/* Should a wait give up now?  stop_requested, or inside a power-off only
 * off_aborted. */
bool stop_now(void);

int64_t now_ms(void); /* CLOCK_MONOTONIC */
int64_t wall_ms(void); /* CLOCK_REALTIME */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list; *len (when len is not NULL) the length. */
char *xvasprintf(size_t *len, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Growable byte buffer. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_append(struct buf *b, const void *p, size_t n);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

int read_file(const char *path, char **data, size_t *len);
/* An API token from a file (its first word), for --token-file: 0, or a negative errno
 * with the error printed (unreadable, empty); the caller checks the file's mode first */
int read_token_file(const char *file, char **token);
/* Atomic replace: a temporary file with a unique name created O_EXCL|O_NOFOLLOW
 * next to the target, fsync, rename, fsync of the directory.  A symlink at the
 * target name is replaced, never followed. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* the same, the file created with mode (as the umask leaves it) instead of 0644 */
int write_file_atomic_mode(const char *path, const void *data, size_t len, mode_t mode);
int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len);
/* The same with the contents of the file src, streamed (memory flat in its size). */
int copy_file_atomic_at(const char *src, int dirfd, const char *name);
/* The same from the open file srcfd (read from its start). */
int copy_fd_atomic_at(int srcfd, int dirfd, const char *name);
/* Opens directory PATH walking it one component at a time with O_NOFOLLOW:
 * returns an fd (O_CLOEXEC) or -errno; -ELOOP with *link = the prefix of PATH
 * that is a symlink (caller frees). */
int open_dir_nofollow(const char *path, char **link);
int mkdir_p(const char *path, mode_t mode);
/* rm -rf PATH in this process (symlinks removed, never followed): 0 or the
 * first -errno; a missing PATH is 0. */
int remove_tree(const char *path);
/* A new private directory PREFIX.XXXXXX (mkdtemp) in $TMPDIR when that is an
 * absolute path, else in /tmp: malloc'd, or NULL with errno set and the
 * error said. */
char *make_run_dir(const char *prefix);
/* One CSV cell (RFC 4180): quoted when it holds a comma, quote or line end; a cell a
 * spreadsheet would take for a formula (starting with = @ tab CR, or + - before more than
 * [A-Za-z0-9._+-]: not a number nor a series label) is prefixed with ' */
void csv_cell(FILE *f, const char *s);
/* A file or module name that can go unquoted into a target shell or U-Boot command:
 * [A-Za-z0-9._+-]+, not starting with '-' or '.' */
bool shell_word_ok(const char *s);
/* module parameters as they are typed into the target's shell (insmod M PARAMS): letters,
 * digits, spaces and =,:._-+ only */
bool modparams_ok(const char *s);
#define MODPARAMS_RULE "module parameters may only contain letters, digits, spaces and =,:._-+"
/* A board or job name: 1-LAB_NAME_MAX of [A-Za-z0-9._+-], not starting with '-' (an
 * option) or '.' (a hidden or relative path); len is its JSON length, so a NUL inside
 * (a JSON \u0000) is refused, not cut. */
#define LAB_NAME_MAX 63
#define LAB_NAME_RULE "1-63 of letters, digits, . _ + -, not starting with - or ."
bool lab_name_ok(const char *s, size_t len);
/* 0 when dir's file system has floor_mb MiB free for this user, else -ENOSPC (or
 * statvfs's error) with why naming dir, what is free and the floor */
int dir_free_check(const char *dir, uint64_t floor_mb, struct errtext *why);
bool is_dir(const char *path);
bool is_file(const char *path);
/* The directory part of path (dirname(3) on a copy), malloc'd. */
char *xdirname(const char *path);

/* Run argv (no shell); wait for it.  Returns exit status (>= 0) or -errno.
 * With out != NULL, stdout is captured into it. */
int run_argv(char *const argv[], struct buf *out);

/* Directories: ABLAB_CACHE / XDG_CACHE_HOME/ablab, ABLAB_DATA / XDG_DATA_HOME/ablab
 * (root: /var/lib/ablab, so that the postgres user can reach it).  NULL, with
 * a message saying what to set, when HOME is not set either. */
char *cache_dir(void);
char *data_dir(void);

/* Replace {key} placeholders with values; unknown keys are an error (-ENOENT),
 * with the key name stored in *bad (caller frees). */
int expand_template(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
		    char **out, char **bad);
/* The same; flags TMPL_KEEP_DOLLAR: a ${var} (U-Boot's, the shell's) is left as it is. */
#define TMPL_KEEP_DOLLAR (1u << 0)
int expand_template_flags(const char *tmpl, const char *const *keys, const char *const *vals,
			  size_t n, unsigned int flags, char **out, char **bad);

/* Random hex string (for markers and UUIDs). */
void random_hex(char *out, size_t nhex);
void uuid_v4(char out[37]);

#endif
