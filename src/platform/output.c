#include "platform/output.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The directory part of PATH ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int output_resolve_links(const char *path, char **out, int *magic)
{
	char *cur = strdup(path), *dir = NULL, *real = NULL;
	int hops = 0;

	*out = NULL;
	*magic = 0;
	for (;;) {
		char link[PATH_MAX], *next;
		struct stat st;
		ssize_t n;

		if (!cur)
			goto fail;
		dir = dir_of(cur);
		if (!dir || !(real = realpath(dir, NULL)))
			goto fail;
		if (!strncmp(real, "/proc/", 6) || !strcmp(real, "/proc")) {
			*magic = 1;
			break;
		}
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			break;  /* the target, or a new file there */
		if (++hops > 40) {
			errno = ELOOP;
			goto fail;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			goto fail;
		link[n] = '\0';
		if (link[0] == '/')
			next = strdup(link);
		else if (asprintf(&next, "%s/%s", dir, link) < 0)
			next = NULL;
		free(cur);
		free(dir);
		free(real);
		cur = next;
		dir = real = NULL;
	}
	if (*magic) {
		*out = cur;
	} else {
		const char *slash = strrchr(cur, '/');

		if (asprintf(out, "%s/%s", strcmp(real, "/") ? real : "",
			     slash ? slash + 1 : cur) < 0) {
			*out = NULL;
			errno = ENOMEM;
		}
		free(cur);
	}
	free(dir);
	free(real);
	return *out ? 0 : -1;
fail:
	free(cur);
	free(dir);
	free(real);
	if (!errno)
		errno = ENOMEM;
	return -1;
}

/* Frees what OUT holds and clears it (the file is closed by the caller). */
static void output_clear(struct output *out)
{
	free(out->path);
	free(out->target);
	free(out->tmp_path);
	memset(out, 0, sizeof(*out));
}

/*
 * The temporary file: a file without a name in the target's directory
 * (O_TMPFILE), which nothing, not even SIGKILL, can leave behind; where the
 * file system has no such files, a named one beside the target
 * (out->tmp_path), removed by output_abort() and on a catchable signal.
 * Returns the descriptor, or -1 with errno set.
 */
static int open_temporary(struct output *out)
{
	char *dir = dir_of(out->target);
	int fd;

	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&out->tmp_path, "%s.tmpXXXXXX", out->target) < 0) {
		out->tmp_path = NULL;
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(out->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		free(out->tmp_path);
		out->tmp_path = NULL;
		return -1;
	}
	/* mkstemp makes 0600; a new report is an ordinary file, subject to the umask. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

int output_open(struct output *out, const char *path)
{
	struct stat st;
	int fd, magic, exists;

	memset(out, 0, sizeof(*out));
	if (!path || !strcmp(path, "-")) {
		out->file = stdout;
		return 0;
	}
	errno = 0;
	if (output_resolve_links(path, &out->target, &magic))
		return error("cannot write '%s': %s", path, strerror(errno));
	exists = !stat(out->target, &st);
	/*
	 * A device, a pipe or an open file named by /proc (/dev/full,
	 * /dev/stdout, a FIFO) is written in place: never renamed over.
	 */
	if (magic || (exists && !S_ISREG(st.st_mode))) {
		free(out->target);
		out->target = NULL;
		out->file = fopen(path, "we");
		if (!out->file && errno == EINTR)
			return -1;  /* a signal while a FIFO waited for its reader: the caller's */
		if (!out->file)
			return error("cannot write '%s': %s", path, strerror(errno));
		out->direct = 1;
		return 0;
	}
	out->path = strdup(path);
	if (!out->path) {
		output_clear(out);
		return error("out of memory");
	}
	fd = open_temporary(out);
	if (fd < 0) {
		int err = errno;

		output_clear(out);
		return error("cannot write '%s': %s", path, strerror(err));
	}
	if (exists) {
		/* The report replaces the file: it keeps the file's owner (where allowed) and mode. */
		if (fchown(fd, st.st_uid, st.st_gid))
			(void)!fchown(fd, (uid_t)-1, st.st_gid);
		fchmod(fd, st.st_mode & 07777);
	}
	out->file = fdopen(fd, "w");
	if (!out->file) {
		int err = errno;

		close(fd);
		if (out->tmp_path)
			unlink(out->tmp_path);
		output_clear(out);
		return error("cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

/* Gives the open file FD the name PATH (which must not exist). Returns 0, or -1 with errno. */
static int link_fd(int fd, const char *path)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != ENOENT)
		return -1;
	/* No /proc: AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH. */
	return linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH);
}

/*
 * Puts the nameless file FD in place of TARGET: linked there when TARGET
 * does not exist, otherwise linked under a unique name beside it and
 * renamed over it, with the catchable signals held between the two (only
 * SIGKILL at that instant could leave the name behind). Returns 0, or -1
 * with errno set.
 */
static int link_into_place(int fd, const char *target)
{
	sigset_t all, old;
	char *name = NULL;
	int ret = -1, err = 0;

	if (!link_fd(fd, target))
		return 0;
	if (errno != EEXIST)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (unsigned tries = 0; tries < 100; tries++) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		free(name);
		if (asprintf(&name, "%s.tmp%06lx", target,
			     ((unsigned long)now.tv_nsec ^ ((unsigned long)getpid() << 8) ^
			      tries * 2654435761u) & 0xffffff) < 0) {
			name = NULL;
			err = ENOMEM;
			break;
		}
		if (!link_fd(fd, name)) {
			ret = rename(name, target);
			err = errno;
			if (ret)
				unlink(name);
			break;
		}
		err = errno;
		if (err != EEXIST)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(name);
	errno = err;
	return ret;
}

int output_commit(struct output *out)
{
	int failed, fd = -1;

	if (!out->path) {
		errno = 0;
		failed = fflush(out->file) || ferror(out->file);
		if (out->direct && fclose(out->file))
			failed = 1;
		if (failed && !broken_pipe(errno))
			error("cannot write the report to %s: %s",
			      out->direct ? "the output device" : "standard output",
			      strerror(errno ? errno : EIO));
		memset(out, 0, sizeof(*out));
		return failed ? -1 : 0;
	}
	errno = 0;
	failed = fflush(out->file) || ferror(out->file) || fsync(fileno(out->file));
	/* A nameless file is linked after the stream is closed, through a descriptor of its own. */
	if (!failed && !out->tmp_path && (fd = fcntl(fileno(out->file), F_DUPFD_CLOEXEC, 0)) < 0)
		failed = 1;
	if (fclose(out->file))
		failed = 1;
	out->file = NULL;
	if (!failed)
		failed = out->tmp_path ? rename(out->tmp_path, out->target) :
					 link_into_place(fd, out->target);
	if (fd >= 0)
		close(fd);
	if (failed) {
		int err = errno ? errno : EIO;

		error("cannot write '%s': %s", out->path, strerror(err));
		output_abort(out);
		return -1;
	}
	output_clear(out);
	return 0;
}
/* ---- one file given twice ----------------------------------------------- */

/* What a file given to a command is, to tell two names of one file. */
struct file_id {
	int exists;       /* stat() found it (through its links) */
	dev_t dev;
	ino_t ino;
	mode_t mode;
	char *target;     /* an output not there yet: the path it will be created at */
};

/* Reads USE's identity into *ID; returns 0, or -1 when it has none to compare (unreadable). */
static int file_id_of(const struct output_use *use, struct file_id *id)
{
	struct stat st;
	int magic;

	memset(id, 0, sizeof(*id));
	if (!strcmp(use->path, "-") ? fstat(use->output ? STDOUT_FILENO : STDIN_FILENO, &st) :
				       stat(use->path, &st)) {
		/* A new output is known by where it will be; a missing input by nothing. */
		if (!use->output || errno != ENOENT || output_resolve_links(use->path, &id->target, &magic))
			return -1;
		if (magic) {
			free(id->target);
			id->target = NULL;
			return -1;
		}
		return 0;
	}
	id->exists = 1;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->mode = st.st_mode;
	return 0;
}

/*
 * 1 when A and B are one file that writing one would spoil for the other:
 * not a character device (a terminal, a null device) nor a socket, which
 * take any number of readers and writers.
 */
static int same_file(const struct file_id *a, const struct file_id *b)
{
	if (a->exists && b->exists)
		return a->dev == b->dev && a->ino == b->ino && !S_ISCHR(a->mode) &&
		       !S_ISSOCK(a->mode);
	return a->target && b->target && !strcmp(a->target, b->target);
}

/* USE's name in a message. */
static const char *use_name(const struct output_use *use)
{
	if (strcmp(use->path, "-"))
		return use->path;
	return use->output ? "standard output" : "standard input";
}

/* The error about OUT (an output) and OTHER, one file. */
static int refuse(const struct output_use *out, const struct output_use *other)
{
	if (!other->output)
		return error("the output '%s' is also an input (%s%s'%s'): writing it would "
			     "overwrite what is read; %s", use_name(out),
			     other->option ? other->option : "", other->option ? " " : "",
			     use_name(other), strcmp(out->path, "-") ? "give it another file" :
			     "send standard output elsewhere, or give -o a file");
	if (!strcmp(out->path, other->path))
		return error("'%s' is given to both %s and %s", use_name(out), other->option,
			     out->option);
	return error("'%s' (%s) and '%s' (%s) are the same file: one would overwrite the "
		     "other; give each its own file", use_name(other), other->option,
		     use_name(out), out->option);
}

int output_refuse_same(const struct output_use *uses, size_t n)
{
	struct file_id *ids = calloc(n ? n : 1, sizeof(*ids));
	int *known = calloc(n ? n : 1, sizeof(*known)), ret = 0;

	if (!ids || !known) {
		free(ids);
		free(known);
		return error("out of memory");
	}
	for (size_t i = 0; i < n; i++)
		known[i] = uses[i].path && !file_id_of(&uses[i], &ids[i]);
	for (size_t i = 0; i < n && !ret; i++) {
		if (!known[i] || !uses[i].output)
			continue;
		/* Each output against every input, then against the outputs before it. */
		for (size_t k = 0; k < n && !ret; k++)
			if (known[k] && !uses[k].output && same_file(&ids[i], &ids[k]))
				ret = refuse(&uses[i], &uses[k]);
		for (size_t k = 0; k < i && !ret; k++)
			if (known[k] && uses[k].output && same_file(&ids[i], &ids[k]))
				ret = refuse(&uses[i], &uses[k]);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i].target);
	free(ids);
	free(known);
	return ret;
}

int output_refuse_input(const char *path, const char *const *inputs, size_t n)
{
	struct output_use *uses = calloc(n + 1, sizeof(*uses));
	int ret;

	if (!uses)
		return error("out of memory");
	uses[0] = (struct output_use){ path ? path : "-", "-o", 1 };
	for (size_t i = 0; i < n; i++)
		uses[i + 1] = (struct output_use){ inputs[i], NULL, 0 };
	ret = output_refuse_same(uses, n + 1);
	free(uses);
	return ret;
}

void output_abort(struct output *out)
{
	if (out->file && out->file != stdout && out->file != stderr)
		fclose(out->file);
	if (out->tmp_path)
		unlink(out->tmp_path);
	output_clear(out);
}
