#include "output.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	if (!out->path || asprintf(&out->tmp_path, "%s.tmpXXXXXX", out->target) < 0) {
		free(out->path);
		free(out->target);
		memset(out, 0, sizeof(*out));
		return error("out of memory");
	}
	fd = mkostemp(out->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		error("cannot write '%s': %s", path, strerror(err));
		free(out->path);
		free(out->target);
		free(out->tmp_path);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (exists) {
		/* The report replaces the file: it keeps the file's owner (where allowed) and mode. */
		if (fchown(fd, st.st_uid, st.st_gid))
			(void)!fchown(fd, (uid_t)-1, st.st_gid);
		fchmod(fd, st.st_mode & 07777);
	} else {
		/* mkstemp makes 0600; a new report is an ordinary file, subject to the umask. */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	out->file = fdopen(fd, "w");
	if (!out->file) {
		int err = errno;

		close(fd);
		unlink(out->tmp_path);
		free(out->path);
		free(out->target);
		free(out->tmp_path);
		memset(out, 0, sizeof(*out));
		return error("cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

int output_commit(struct output *out)
{
	int failed;

	if (!out->path) {
		errno = 0;
		failed = fflush(out->file) || ferror(out->file);
		if (out->direct && fclose(out->file))
			failed = 1;
		if (failed)
			error("cannot write the report to %s: %s",
			      out->direct ? "the output device" : "standard output",
			      strerror(errno ? errno : EIO));
		memset(out, 0, sizeof(*out));
		return failed ? -1 : 0;
	}
	errno = 0;
	failed = fflush(out->file) || ferror(out->file) || fsync(fileno(out->file));
	if (fclose(out->file))
		failed = 1;
	out->file = NULL;
	if (failed || rename(out->tmp_path, out->target)) {
		int err = errno ? errno : EIO;

		unlink(out->tmp_path);
		error("cannot write '%s': %s", out->path, strerror(err));
		output_abort(out);
		return -1;
	}
	free(out->path);
	free(out->target);
	free(out->tmp_path);
	memset(out, 0, sizeof(*out));
	return 0;
}

int output_refuse_input(const char *path, const char *const *inputs, size_t n)
{
	struct stat out_st, in_st;

	if (!path || !strcmp(path, "-") || stat(path, &out_st))
		return 0;  /* a new file is nobody's input */
	for (size_t i = 0; i < n; i++) {
		int is_stdin = !strcmp(inputs[i], "-");

		if (is_stdin ? fstat(STDIN_FILENO, &in_st) : stat(inputs[i], &in_st))
			continue;  /* reading it will say why */
		if (in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
			return error("the output '%s' is also an input ('%s'): writing it would "
				     "overwrite what is read; give -o another file", path,
				     is_stdin ? "standard input" : inputs[i]);
	}
	return 0;
}

void output_abort(struct output *out)
{
	if (out->file && out->file != stdout)
		fclose(out->file);
	if (out->tmp_path)
		unlink(out->tmp_path);
	free(out->path);
	free(out->target);
	free(out->tmp_path);
	memset(out, 0, sizeof(*out));
}
