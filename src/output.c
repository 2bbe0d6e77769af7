#include "output.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int output_open(struct output *out, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!path || !strcmp(path, "-")) {
		out->file = stdout;
		return 0;
	}
	/* A device or pipe (/dev/full, /dev/stdout) is written in place: never renamed over. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		out->file = fopen(path, "we");
		if (!out->file)
			return error("cannot write '%s': %s", path, strerror(errno));
		out->direct = 1;
		return 0;
	}
	out->path = strdup(path);
	if (!out->path || asprintf(&out->tmp_path, "%s.tmpXXXXXX", path) < 0) {
		free(out->path);
		out->path = NULL;
		return error("out of memory");
	}
	fd = mkostemp(out->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		error("cannot write '%s': %s", path, strerror(err));
		free(out->path);
		free(out->tmp_path);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	/* mkstemp makes 0600; a report is an ordinary file, subject to the umask. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	out->file = fdopen(fd, "w");
	if (!out->file) {
		close(fd);
		unlink(out->tmp_path);
		return error("cannot write '%s': %s", path, strerror(errno));
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
	if (failed || rename(out->tmp_path, out->path)) {
		int err = errno ? errno : EIO;

		unlink(out->tmp_path);
		error("cannot write '%s': %s", out->path, strerror(err));
		output_abort(out);
		return -1;
	}
	free(out->path);
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
	free(out->tmp_path);
	memset(out, 0, sizeof(*out));
}
