/*
 * rerun.c - the recorded program run again under each drop-in candidate,
 * measured (rerun.h).
 */
#include "model/rerun.h"
#include "model/progress.h"
#include "model/runner.h"
#include "model/verdict.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Processes of one run's tree followed at once; deeper or more are not. */
#define RERUN_MAX_PROCS 256
#define RERUN_MAX_DEPTH 16
/*
 * The pause between two readings: at least this, and three times a
 * reading's own time; until the program is first seen (the exec and the
 * dynamic loader's work), RERUN_FIRST_NS.
 */
#define RERUN_INTERVAL_NS 500000u
#define RERUN_FIRST_NS 50000u
/*
 * A run that ends before the program is seen (a short program on a busy
 * machine) is made again, this many times at most.
 */
#define RERUN_UNSEEN_TRIES 10

/* 1 when ROW is the C library's malloc as it is: no preload, no settings. */
static int plain_malloc(const struct rerun_row *row)
{
	return !row->backend->preload_path && !row->backend->env;
}

int rerun_runs(const struct backend *be)
{
	return !be->abi && (be->preload_path || !strcmp(backend_base(be)->name, "malloc"));
}

void rerun_init(struct rerun *r, const struct run_config *config, unsigned rounds,
		const char *program, int status, off_t stdin_offset)
{
	struct stat st;
	int in_stat = !fstat(STDIN_FILENO, &st);

	memset(r, 0, sizeof(*r));
	copy_string(r->program, sizeof(r->program), program);
	r->status = status;
	r->stdin_offset = stdin_offset;
	for (size_t b = 0; b < config->nbackends && r->nrows < RERUN_MAX_ROWS; b++) {
		const struct backend *be = config->backends[b];

		if (rerun_runs(be))
			r->rows[r->nrows++] = (struct rerun_row){ .backend = be, .ok = 1 };
	}
	if (!rounds)
		snprintf(r->why, sizeof(r->why), "--reruns 0: the program was not run again");
	else if (in_stat && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		snprintf(r->why, sizeof(r->why), "its standard input is a pipe, which it read once: "
			 "it cannot be run again as it ran (give it a file to read)");
	else if (in_stat && S_ISREG(st.st_mode) && stdin_offset < 0)
		snprintf(r->why, sizeof(r->why), "its standard input is a file whose start "
			 "cannot be found again");
	else if (!r->nrows)
		snprintf(r->why, sizeof(r->why), "no drop-in allocator was replayed (--backend)");
	else if (!*program)
		snprintf(r->why, sizeof(r->why), "the trace does not name its program");
	else
		r->rounds = rounds;
}

/* ---- following a run's process tree ---- */

/* A process of the tree. */
struct followed {
	pid_t pid;
	int status_fd;        /* /proc/PID/status, or -1 once it is gone */
	char comm[32];        /* its Name at the last reading: an exec changes it */
	int matched;          /* its executable is the program */
};

struct tree {
	const char *program;
	struct followed p[RERUN_MAX_PROCS];
	size_t n;
	uint64_t peak;        /* the highest RssAnon of a matched process, bytes */
	uint64_t low;         /* the lowest since that peak */
	uint64_t last;        /* the last reading */
	int seen;             /* a matched process was read */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct followed *follow(struct tree *t, pid_t pid)
{
	char path[64];

	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].pid == pid)
			return &t->p[i];
	if (t->n == RERUN_MAX_PROCS)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	t->p[t->n] = (struct followed){ .pid = pid, .status_fd = open(path, O_RDONLY | O_CLOEXEC) };
	return &t->p[t->n++];
}

/* 1 when PID runs the program: its executable's path is the trace's (cut as the trace cuts it). */
static int runs_program(const struct tree *t, pid_t pid)
{
	char path[64], exe[4096];
	ssize_t n;
	size_t len = strlen(t->program);

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return 0;
	exe[n] = '\0';
	return len >= sizeof(((struct rerun *)0)->program) - 1 ? !strncmp(exe, t->program, len) :
	       !strcmp(exe, t->program);
}

/*
 * Reads P's status: its Name, and its RssAnon where it runs the program.
 * When the Name changed (an exec), whether it runs the program is asked
 * again (its executable), and this reading does not count: the exec may
 * have replaced the memory between the status read and that question.
 */
static void read_status(struct tree *t, struct followed *p)
{
	char buf[4096], *at, *end;
	ssize_t n;

	if (p->status_fd < 0)
		return;
	n = pread(p->status_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		close(p->status_fd);
		p->status_fd = -1;
		return;
	}
	buf[n] = '\0';
	if (!strncmp(buf, "Name:\t", 6) && (end = strchr(buf + 6, '\n'))) {
		size_t len = (size_t)(end - (buf + 6));

		if (len >= sizeof(p->comm))
			len = sizeof(p->comm) - 1;
		if (strncmp(p->comm, buf + 6, len) || p->comm[len]) {
			memcpy(p->comm, buf + 6, len);
			p->comm[len] = '\0';
			p->matched = runs_program(t, p->pid);
			return;
		}
	}
	/* A zombie's status has no memory lines. */
	if (p->matched && (at = strstr(buf, "\nRssAnon:"))) {
		uint64_t bytes = strtoull(at + 9, NULL, 10) * 1024u;

		t->seen = 1;
		/*
		 * An exit takes the memory away before the kernel's reading can
		 * see it go (exit_mm() drops the task's mm first): the last
		 * reading is what the program held after its exit handlers.
		 */
		t->last = bytes;
		if (bytes > t->peak)
			t->peak = t->low = bytes;
		else if (bytes < t->low)
			t->low = bytes;
	}
}

/* One reading of PID and, through the kernel's children lists, what it started. */
static void read_tree(struct tree *t, pid_t pid, int depth)
{
	char path[96], buf[4096], *at, *next;
	struct followed *p = follow(t, pid);
	ssize_t n;
	int fd;

	if (!p)
		return;
	read_status(t, p);
	if (depth == RERUN_MAX_DEPTH)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (at = buf; *at; at = next) {
		long child = strtol(at, &next, 10);

		if (next == at)
			break;
		if (child > 0)
			read_tree(t, (pid_t)child, depth + 1);
	}
}

static void tree_release(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].status_fd >= 0)
			close(t->p[i].status_fd);
	t->n = 0;
}

/* ---- one run ---- */

/* The child: its own group, killed with allocbench, its streams set, ROW's allocator. */
static void run_child(const struct rerun_row *row, char *const *argv, off_t stdin_offset)
{
	struct stat st;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null < 0)
		_exit(126);
	if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode))
		lseek(STDIN_FILENO, stdin_offset, SEEK_SET);
	else if (isatty(STDIN_FILENO))
		dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (row->backend->preload_path && setenv("LD_PRELOAD", row->backend->preload_path, 1))
		_exit(126);
	/* A candidate's settings (model/settings.h). */
	for (const char *const *e = row->backend->env; e && *e; e++)
		if (putenv((char *)*e))
			_exit(126);
	execvp(argv[0], argv);
	_exit(errno == ENOENT ? 127 : 126);
}

/*
 * The reason a run ended by STATUS failed into ROW: 1, or 0 when it did
 * not. A run that ended as it should without the program read is not
 * measured either (1), with no reason: the caller tries again.
 */
static int run_failed(struct rerun *r, struct rerun_row *row, int status, const struct tree *t)
{
	if (WIFSIGNALED(status))
		snprintf(row->error, sizeof(row->error), "run %u was killed by SIG%s", row->runs + 1,
			 sigabbrev_np(WTERMSIG(status)));
	else if (WEXITSTATUS(status) != r->status)
		snprintf(row->error, sizeof(row->error), "run %u exited with status %d, the "
			 "recorded run with %d: it does not run the same again (--reruns 0 for a "
			 "program that cannot)", row->runs + 1, WEXITSTATUS(status), r->status);
	else if (!t->seen)
		return 1;
	else
		return 0;
	return 1;
}

/*
 * One run of ARGV under ROW: its figures added, or ROW failed. Returns 1
 * when the run ended well without the program seen (nothing added,
 * ROW still ok): the caller may run it again.
 */
static int run_once(struct rerun *r, struct rerun_row *row, char *const *argv)
{
	int unseen = 0;
	struct tree *t = calloc(1, sizeof(*t));
	uint64_t start, wall, pause = RERUN_INTERVAL_NS;
	int status, slot, pidfd;
	pid_t pid;

	if (!t) {
		snprintf(row->error, sizeof(row->error), "out of memory");
		row->ok = 0;
		return 0;
	}
	t->program = r->program;
	fflush(NULL);
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		snprintf(row->error, sizeof(row->error), "cannot start '%s': %s", argv[0],
			 strerror(errno));
		row->ok = 0;
		free(t);
		return 0;
	}
	if (!pid)
		run_child(row, argv, r->stdin_offset);
	setpgid(pid, pid);
	slot = runner_track(pid);
	if (runner_interrupted())
		kill(-pid, SIGKILL);
	/* Its end wakes the wait between two readings: the wall time ends there. */
	pidfd = runner_pidfd(pid);
	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		struct pollfd end = { .fd = pidfd, .events = POLLIN };
		struct timespec ts;
		uint64_t took;

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			status = 126 << 8;
			break;
		}
		took = now_ns();
		read_tree(t, pid, 0);
		took = now_ns() - took;
		pause = !t->seen ? RERUN_FIRST_NS : 3 * took > RERUN_INTERVAL_NS ? 3 * took :
			RERUN_INTERVAL_NS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)pause;
		if (pidfd < 0 || ppoll(&end, 1, &ts, NULL) < 0)
			nanosleep(&ts, NULL);
	}
	wall = now_ns() - start;
	if (pidfd >= 0)
		close(pidfd);
	/* Whatever it left in its group goes with it. */
	kill(-pid, SIGKILL);
	runner_untrack(slot);
	if (runner_interrupted()) {
		r->interrupted = runner_interrupted();
	} else if (run_failed(r, row, status, t)) {
		unseen = !t->seen && WIFEXITED(status) && WEXITSTATUS(status) == r->status;
		row->ok = unseen;
	} else {
		row->value[RERUN_WALL][row->runs] = (double)wall;
		row->value[RERUN_PEAK][row->runs] = (double)t->peak;
		row->value[RERUN_LOW][row->runs] = (double)t->low;
		row->value[RERUN_END][row->runs] = (double)t->last;
		row->runs++;
	}
	tree_release(t);
	free(t);
	return unseen;
}

/* Runs still to make: the rounds each row that runs on has left. */
static size_t runs_left(const struct rerun *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].ok && !r->rows[i].stopped[0])
			n += r->rounds - r->rows[i].runs;
	return n;
}

/* The least of FIGURE over ROW's runs, or of every row's (ROW NULL) into R's *LEAST. */
static double least(const struct rerun *r, const struct rerun_row *row, enum rerun_figure figure)
{
	double v = INFINITY;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct rerun_row *x = &r->rows[i];

		if ((row && x != row) || !x->ok)
			continue;
		for (unsigned k = 0; k < x->runs; k++)
			if (x->value[figure][k] < v)
				v = x->value[figure][k];
	}
	return v;
}

/*
 * 1 when ROW's peaks agree within RERUN_PEAK_AGREE: its runs so far are
 * its figure, and its median of two is not the mean of a run and an
 * outlier (now and then one tcmalloc process takes 2 MiB more, t0013).
 */
static int peaks_agree(const struct rerun_row *row)
{
	struct stat_summary s;

	return !rerun_summary(row, RERUN_PEAK, &s) && s.max <= s.min * (1 + RERUN_PEAK_AGREE);
}

/*
 * ROW is behind on FIGURE after ROUND rounds: its least is over the
 * figure's margin above ALL, the least of all (rerun.h); or, from round 2
 * on and where its peaks agree, its range lies above the range of the row
 * with the least median.
 */
static int behind(const struct rerun *r, const struct rerun_row *row, enum rerun_figure figure,
		  unsigned round, double all)
{
	double margin = figure == RERUN_WALL ? RERUN_TIME_MARGIN : RERUN_MEMORY_MARGIN;
	struct rerun_best b;
	struct stat_summary mine, best;

	if (least(r, row, figure) > all * (1 + margin))
		return 1;
	if (round < 2 || !peaks_agree(row))
		return 0;
	rerun_best(r, figure, &b);
	return b.n && &r->rows[b.row[0]] != row && !rerun_summary(row, figure, &mine) &&
	       !rerun_summary(&r->rows[b.row[0]], figure, &best) && mine.min > best.max;
}

/*
 * After a round: each row other than malloc behind on every figure runs no
 * more, and says why. Returns how many stopped.
 */
static size_t race(struct rerun *r, unsigned round)
{
	static const enum rerun_figure figures[] = { RERUN_PEAK, RERUN_LOW, RERUN_WALL };
	double all[3];
	size_t stopped = 0;

	for (size_t f = 0; f < 3; f++)
		all[f] = least(r, NULL, figures[f]);
	for (size_t i = 0; i < r->nrows; i++) {
		struct rerun_row *row = &r->rows[i];
		size_t f = 0;

		if (!row->ok || row->stopped[0] || !row->runs || plain_malloc(row))
			continue;
		while (f < 3 && behind(r, row, figures[f], round, all[f]))
			f++;
		if (f < 3)
			continue;
		snprintf(row->stopped, sizeof(row->stopped), "behind the best on every figure after "
			 "%u run%s (its least peak, after the peak and time %.0f%%, %.0f%% and %.0f%% "
			 "over the least of all%s)", round, round == 1 ? "" : "s",
			 100 * (least(r, row, RERUN_PEAK) / all[0] - 1),
			 100 * (least(r, row, RERUN_LOW) / all[1] - 1),
			 100 * (least(r, row, RERUN_WALL) / all[2] - 1),
			 round > 1 ? ", or its range above the best one's" : "");
		stopped++;
	}
	return stopped;
}

/* X within SHARE of Y (both positive figures). */
static int within(double x, double y, double share)
{
	return fabs(x - y) <= share * y;
}

/*
 * After ROUND rounds: each candidate with settings as its allocator without
 * them (rerun.h) runs no more, and says why. Returns how many stopped.
 */
static size_t no_effect(struct rerun *r, unsigned round)
{
	size_t stopped = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		struct rerun_row *row = &r->rows[i];
		const struct rerun_row *base = NULL;

		if (!row->ok || row->stopped[0] || !row->runs || !row->backend->env)
			continue;
		for (size_t k = 0; k < r->nrows; k++)
			if (r->rows[k].backend == row->backend->base && r->rows[k].ok &&
			    r->rows[k].runs)
				base = &r->rows[k];
		if (!base ||
		    !within(least(r, row, RERUN_PEAK), least(r, base, RERUN_PEAK), RERUN_PEAK_AGREE) ||
		    !within(least(r, row, RERUN_LOW), least(r, base, RERUN_LOW), RERUN_PEAK_AGREE) ||
		    !within(least(r, row, RERUN_WALL), least(r, base, RERUN_WALL), RERUN_TIME_MARGIN))
			continue;
		snprintf(row->stopped, sizeof(row->stopped), "after %u run%s as %s without its "
			 "settings (least peak and after it within %.0f%%, time within %.0f%%): the "
			 "setting changes nothing measured for this program", round,
			 round == 1 ? "" : "s", base->backend->name, 100 * RERUN_PEAK_AGREE,
			 100 * RERUN_TIME_MARGIN);
		row->no_effect = 1;
		stopped++;
	}
	return stopped;
}

/*
 * After round 2 or later: where every row still running has a wall time
 * range that overlaps malloc's, none can be faster than malloc beyond the
 * noise (verdict.h) however many rounds follow, since ranges only widen:
 * the time answer is settled, and every row runs no more, where each one's
 * peaks agree (peaks_agree(): their second run was their check). Returns
 * how many stopped.
 */
static size_t settle(struct rerun *r, unsigned round)
{
	struct stat_summary s, m;
	struct rerun_best b;
	size_t stopped = 0;

	if (round < 2)
		return 0;
	rerun_best(r, RERUN_WALL, &b);
	if (!b.have_malloc || rerun_summary(&r->rows[b.malloc_row], RERUN_WALL, &m))
		return 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct rerun_row *row = &r->rows[i];

		if (row->ok && !row->stopped[0] &&
		    (rerun_summary(row, RERUN_WALL, &s) || !stats_overlap(&s, &m) ||
		     !peaks_agree(row)))
			return 0;
	}
	for (size_t i = 0; i < r->nrows; i++) {
		struct rerun_row *row = &r->rows[i];

		if (!row->ok || row->stopped[0])
			continue;
		snprintf(row->stopped, sizeof(row->stopped), "after %u runs every candidate's time "
			 "overlaps malloc's: none is faster beyond the noise, and no round more can "
			 "make one", round);
		stopped++;
	}
	return stopped;
}

/*
 * ROW's program was not seen in RERUN_UNSEEN_TRIES runs that ended well.
 * Before any run of any row was measured, no run of it can be: R runs
 * none (rounds 0) and says why, as where the program cannot run again
 * (the drop-in lines are replayed), and returns 1. Once some were, ROW
 * alone fails, saying why (0). With SAY, a line of progress says so.
 */
static int never_seen(struct rerun *r, struct rerun_row *row, const char *name, int say)
{
#define NEVER_SEEN "%.100s was not seen running in %d runs under %s (it ends within a " \
	"fraction of a millisecond, or runs outside the command's process tree)"
	int none = 1;

	for (size_t i = 0; i < r->nrows; i++)
		none &= !r->rows[i].runs && r->rows[i].ok;
	if (!none) {
		row->ok = 0;
		snprintf(row->error, sizeof(row->error), NEVER_SEEN, r->program,
			 RERUN_UNSEEN_TRIES, row->backend->name);
		return 0;
	}
	snprintf(r->why, sizeof(r->why), NEVER_SEEN, r->program, RERUN_UNSEEN_TRIES,
		 row->backend->name);
	r->rounds = 0;
	if (say)
		progress_say(PROGRESS_LINE, "%s under %s: not seen in %d runs, no real runs: the "
			     "drop-in lines are replayed", name, row->backend->name, RERUN_UNSEEN_TRIES);
	return 1;
}

void rerun_measure(struct rerun *r, char *const *argv, int quiet, int lines)
{
	size_t done = 0, rows_done = 0;
	const char *name = strrchr(r->program, '/') ? strrchr(r->program, '/') + 1 : r->program;

	for (unsigned round = 0; round < r->rounds && !r->interrupted; round++) {
		for (size_t k = 0; k < r->nrows && !r->interrupted; k++) {
			/* Each round starts at another candidate: drift over time falls on all. */
			struct rerun_row *row = &r->rows[(k + round) % r->nrows];

			if (!row->ok || row->stopped[0])
				continue;
			if (!quiet)
				progress_say(PROGRESS_TASK, "running %s under %-9s run %u of %u  [%zu/%zu]",
					     name, row->backend->name, round + 1, r->rounds, done + 1,
					     done + runs_left(r));
			done++;
			for (int tries = 1; row->ok && run_once(r, row, argv); tries++)
				if (tries == RERUN_UNSEEN_TRIES &&
				    never_seen(r, row, name, !quiet && lines))
					goto out;
			if (!quiet && lines && !r->interrupted && (round + 1 == r->rounds || !row->ok))
				progress_say(PROGRESS_LINE, "%s under %s: %u of %u runs done%s (%zu of %zu "
					     "candidates)", name, row->backend->name, row->runs, r->rounds,
					     row->ok ? "" : ", failed", ++rows_done, r->nrows);
		}
		if (r->interrupted || round + 1 == r->rounds ||
		    !(race(r, round + 1) + no_effect(r, round + 1) + settle(r, round + 1)))
			continue;
		for (size_t i = 0; i < r->nrows; i++)
			if (r->rows[i].ok && r->rows[i].stopped[0] && r->rows[i].runs == round + 1 &&
			    !quiet && lines)
				progress_say(PROGRESS_LINE, "%s under %s: %u of %u runs done, no more: %s "
					     "(%zu of %zu candidates)", name, r->rows[i].backend->name,
					     r->rows[i].runs, r->rounds, r->rows[i].stopped, ++rows_done,
					     r->nrows);
	}
out:
	if (!quiet)
		progress_say(PROGRESS_END, "%s", "");
}

/* ---- the answer ---- */

int rerun_answers(const struct rerun *r)
{
	if (!r || !r->rounds)
		return 0;
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].runs && r->rows[i].ok)
			return 1;
	return 0;
}

int rerun_failed(const struct rerun *r)
{
	for (size_t i = 0; r && i < r->nrows; i++)
		if (!r->rows[i].ok)
			return 1;
	return 0;
}

int rerun_summary(const struct rerun_row *row, enum rerun_figure figure, struct stat_summary *out)
{
	if (!row->ok || !row->runs)
		return -1;
	return stats_summarize(row->value[figure], row->runs, out);
}

/* 1 when ROW is the C library's malloc, with settings or without. */
static int is_libc(const struct rerun_row *row)
{
	return !row->backend->preload_path;
}

/*
 * 1 when summary X stands with BEST among the best of FIGURE: their ranges
 * overlap, or, for memory, X lies within RERUN_PEAK_AGREE of BEST (a
 * program's own peak moves that much from one invocation to the next, so
 * that less is no saving to stand behind, however tight three runs lie).
 */
static int among_best(enum rerun_figure figure, const struct stat_summary *x,
		      const struct stat_summary *best)
{
	return stats_overlap(x, best) ||
	       (figure != RERUN_WALL && x->median <= best->median * (1 + RERUN_PEAK_AGREE));
}

/* rerun_best() among the rows KEEP keeps (NULL: all). */
static void best_of(const struct rerun *r, enum rerun_figure figure,
		    int (*keep)(const struct rerun_row *row), struct rerun_best *out)
{
	struct stat_summary s[RERUN_MAX_ROWS], m;
	int have[RERUN_MAX_ROWS];
	size_t best = r->nrows;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->nrows; i++) {
		/* A setting that changed nothing measured is its allocator: not a choice of its own. */
		have[i] = (!keep || keep(&r->rows[i])) && !r->rows[i].no_effect &&
			  !rerun_summary(&r->rows[i], figure, &s[i]);
		if (have[i] && (best == r->nrows || s[i].median < s[best].median))
			best = i;
		if (have[i] && plain_malloc(&r->rows[i])) {
			out->have_malloc = 1;
			out->malloc_row = i;
		}
	}
	if (best == r->nrows)
		return;
	out->row[out->n++] = best;
	for (size_t i = 0; i < r->nrows; i++)
		if (have[i] && i != best && among_best(figure, &s[i], &s[best]))
			out->row[out->n++] = i;
	for (size_t i = 0; i < out->n; i++)
		if (out->have_malloc && out->row[i] == out->malloc_row)
			out->malloc_among = 1;
	if (!out->have_malloc)
		return;
	m = s[out->malloc_row];
	out->saves = m.median - s[best].median;
	out->percent = m.median != 0 ? 100 * out->saves / m.median : NAN;
	out->clear = !among_best(figure, &m, &s[best]);
}

void rerun_best(const struct rerun *r, enum rerun_figure figure, struct rerun_best *out)
{
	best_of(r, figure, NULL, out);
}

void rerun_best_libc(const struct rerun *r, enum rerun_figure figure, struct rerun_best *out)
{
	best_of(r, figure, is_libc, out);
}
