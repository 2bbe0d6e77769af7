/*
 * cmd_report.c - `allocbench report TRACE`: a recorded program's
 * allocations as a profile (trace.h): calls by kind, sizes, the peak of
 * live bytes and chunks, lifetimes, threads and cross-thread frees, as text
 * or JSON. Exit status: 0, 1 when the report cannot be written, 2 bad
 * usage or an unreadable, truncated or damaged trace, 141 when the reader
 * of its pipe went away (main()). Like the other cmd_*.c files, it may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "report/json_out.h"
#include "platform/output.h"
#include "cmd/parse_options.h"
#include "trace/trace.h"
#include "trace/trace_set.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Writes the report of SET: its processes, and what its chosen one allocated. */
typedef int (*trace_write_fn)(FILE *out, const struct trace_set *set);

struct trace_writer {
	const char *name;
	trace_write_fn write;
};

/*
 * The upper bound of size bucket B, in bytes: 2^(B-1), except the last,
 * whose 2^64 is one more than any size.
 */
static uint64_t bucket_max(unsigned b)
{
	if (b >= TRACE_SIZE_BUCKETS - 1)
		return UINT64_MAX;
	return b ? (uint64_t)1 << (b - 1) : 0;
}

static const uint64_t lifetime_max_calls[TRACE_LIFETIME_BUCKETS] = {
	10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 0,
};

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The processes of a recording of more than one, which advise replays, and the notes on them. */
static void write_text_processes(FILE *out, const struct trace_set *set)
{
	char text[1024];
	int wrote = set->n > 1;

	if (set->n > 1) {
		fprintf(out, "processes (%zu; advise replays the one with the most calls, *)\n", set->n);
		fprintf(out, "  %1s %8s %8s  %-16s %12s %14s %9s  %-16s %s\n", "", "pid", "ppid",
			"program", "calls", "peak live B", "anon KiB", "how it ended", "trace");
	}
	for (size_t i = 0; i < set->n && set->n > 1; i++) {
		const struct trace_proc *p = &set->procs[i];
		char program[512], name[1024];

		if (p->error) {
			fprintf(out, "  %1s %8s %8s  %-16s %s\n", "", "", "", "", p->error);
			continue;
		}
		if (p->t.header.anon_peak_kib)
			snprintf(text, sizeof(text), "%" PRIu32, p->t.header.anon_peak_kib);
		else
			copy_string(text, sizeof(text), "-");
		/* Both are what the recorded program chose: printed cleaned, as the rest (trace_set.h). */
		text_clean(program, sizeof(program), trace_proc_program(p));
		text_clean(name, sizeof(name), trace_proc_name(p));
		fprintf(out, "  %1s %8" PRIu32 " %8" PRIu32 "  %-16s %12" PRIu64 " %14" PRIu64
			" %9s  %-16s %s\n", i == set->chosen ? "*" : "", p->t.header.pid, p->t.header.ppid,
			program, p->stats.calls[0], p->stats.peak_live_bytes, text,
			trace_state_name(p->t.header.state), name);
	}
	if (set->n > 1)
		fprintf(out, "advise replays %s\n", trace_set_choice_text(set, text, sizeof(text)));
	for (size_t i = 0; i < set->n; i++)
		if (set->procs[i].hint) {
			fprintf(out, "note: %s\n", trace_proc_hint_text(&set->procs[i], text, sizeof(text)));
			wrote = 1;
		}
	if (wrote)
		fputc('\n', out);
}

/* The sizes asked for, by power-of-two bucket, and the most frequent ones. */
static void write_text_sizes(FILE *out, const struct trace_stats *st)
{
	uint64_t allocs = 0;

	for (unsigned b = 0; b < TRACE_SIZE_BUCKETS; b++)
		allocs += st->size_buckets[b];
	fprintf(out, "\nsizes (%" PRIu64 " allocating calls, %" PRIu64 " bytes asked for)\n",
		allocs, st->requested_bytes);
	for (unsigned b = 0; b < TRACE_SIZE_BUCKETS; b++) {
		if (!st->size_buckets[b])
			continue;
		if (b <= 1)
			fprintf(out, "  %12" PRIu64 " B     ", bucket_max(b));
		else
			fprintf(out, "  %5" PRIu64 "..%-5" PRIu64 " B", bucket_max(b - 1) + 1, bucket_max(b));
		fprintf(out, " %12" PRIu64 "  %5.1f%%\n", st->size_buckets[b],
			percent(st->size_buckets[b], allocs));
	}
	fputs("  most frequent:", out);
	for (unsigned i = 0; i < st->ntop; i++)
		fprintf(out, "%s %" PRIu64 " B x %" PRIu64, i ? "," : "", st->top_size[i],
			st->top_count[i]);
	fputc('\n', out);
}

static int write_text(FILE *out, const struct trace_set *set)
{
	const struct trace_proc *p = &set->procs[set->chosen];
	const char *path = p->path;
	const struct trace *t = &p->t;
	const struct trace_stats *st = &p->stats;
	char bytes[64], reason[160], program[512], shown_path[4096], command[512];

	write_text_processes(out, set);
	text_clean(shown_path, sizeof(shown_path), path);
	text_clean(command, sizeof(command), t->header.command[0] ? t->header.command :
		   "(program unknown)");
	fprintf(out, "trace %s: pid %" PRIu32 ", %s, %s\n", shown_path, t->header.pid, command,
		trace_state_name(t->header.state));
	if (t->header.state == TRACE_STATE_WRITING)
		fprintf(out, "  cut short: the process ended without exit, exec or _exit (killed or "
			"crashed); read up to its last complete record\n");
	if (t->unsealed_chunks)
		fprintf(out, "  %" PRIu64 " chunks not sealed (the recorder's window when it stopped)\n",
			t->unsealed_chunks);
	if (t->header.lost)
		fprintf(out, "  incomplete: %" PRIu64 " calls not recorded (%s)\n", t->header.lost,
			trace_lost_reason(&t->header, reason, sizeof(reason)));
	fprintf(out, "  %" PRIu64 " calls in %" PRIu32 " thread%s, %" PRIu64 " bytes of trace "
		"(%.3g bytes per call)\n", st->calls[0], st->nthreads, st->nthreads == 1 ? "" : "s",
		t->trace_bytes,
		st->calls[0] ? (double)t->trace_bytes / (double)st->calls[0] : 0.0);
	trace_program_text(&t->header, st->calls[0] + t->header.lost, program, sizeof(program));
	put_wrappedf(out, 80, "    ", "  program: %s", program);
	fputs("\ncalls\n", out);
	for (unsigned k = 1; k < TRACE_KINDS; k++)
		if (st->calls[k])
			fprintf(out, "  %-15s %12" PRIu64 "  %5.1f%%\n", trace_kind_name(k), st->calls[k],
				percent(st->calls[k], st->calls[0]));
	fprintf(out, "  failed allocations %" PRIu64 ", free(NULL) %" PRIu64
		", frees of chunks allocated before recording %" PRIu64 "\n",
		st->failed, st->free_null, st->unknown_frees);
	format_bytes(bytes, sizeof(bytes), st->peak_live_bytes);
	fprintf(out, "\nlive\n  peak %" PRIu64 " bytes (%s) after call %" PRIu64 " of %" PRIu64
		" (%.0f%% of the way)\n", st->peak_live_bytes, bytes, st->peak_at_call, st->calls[0],
		percent(st->peak_at_call, st->calls[0]));
	fprintf(out, "  peak %" PRIu64 " chunks; at the end %" PRIu64 " bytes in %" PRIu64
		" chunks never freed\n", st->peak_live_chunks, st->live_bytes_end,
		st->live_chunks_end);
	if (st->paged_frees)
		fprintf(out, "  never written: %" PRIu64 " bytes of %" PRIu64 " freed chunks of %d KiB "
			"or more\n    (pages not resident at their free); a replay leaves them "
			"unwritten too\n", st->unwritten_bytes, st->paged_frees,
			TRACE_PAGES_MIN_BYTES / 1024);
	write_text_sizes(out, st);
	fprintf(out, "\nlifetimes (calls between a chunk's allocation and its free; median %" PRIu64 ")\n",
		st->median_lifetime_calls);
	for (unsigned b = 0; b < TRACE_LIFETIME_BUCKETS; b++) {
		if (!st->lifetimes[b])
			continue;
		if (lifetime_max_calls[b])
			fprintf(out, "  up to %-12" PRIu64 " %12" PRIu64 "\n", lifetime_max_calls[b],
				st->lifetimes[b]);
		else
			fprintf(out, "  longer             %12" PRIu64 "\n", st->lifetimes[b]);
	}
	fprintf(out, "  never freed        %12" PRIu64 "\n", st->live_chunks_end);
	fprintf(out, "\nthreads (%" PRIu32 "; %" PRIu64 " frees from a thread other than the allocating one)\n",
		st->nthreads, st->cross_thread_frees);
	fprintf(out, "  %6s %12s %12s %12s %14s %12s\n", "thread", "calls", "allocations", "frees",
		"bytes", "remote frees");
	for (uint32_t i = 0; i < st->nthreads; i++)
		fprintf(out, "  %6" PRIu32 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64
			" %12" PRIu64 "\n", st->threads[i].index, st->threads[i].calls, st->threads[i].allocations,
			st->threads[i].frees, st->threads[i].bytes, st->threads[i].remote_frees);
	return ferror(out) ? -1 : 0;
}

/*
 * The process's own figures, "program" in OBJ: what the trace keeps of
 * them (a figure not measured left out), and "absent", a sentence, where
 * the peak anonymous memory is not there.
 */
static void add_json_program(cJSON *obj, const struct trace *t, uint64_t calls)
{
	cJSON *o = cJSON_AddObjectToObject(obj, "program");
	char text[512];

	cJSON_AddNumberToObject(o, "calls", (double)calls);
	if (t->header.state != TRACE_STATE_WRITING) {
		if (t->header.anon_peak_kib)
			cJSON_AddNumberToObject(o, "peak_anon_bytes", 1024.0 * t->header.anon_peak_kib);
		if (t->header.hwm_kib)
			cJSON_AddNumberToObject(o, "hwm_bytes", 1024.0 * t->header.hwm_kib);
		if (t->header.run_ns)
			cJSON_AddNumberToObject(o, "wall_seconds", (double)t->header.run_ns / 1e9);
	}
	if (!trace_program_text(&t->header, calls, text, sizeof(text)))
		cJSON_AddStringToObject(o, "absent", text);
}

/* SET's processes: "processes" and "advise_replays" in ROOT. */
static void write_json_processes(cJSON *root, const struct trace_set *set)
{
	cJSON *a = cJSON_AddArrayToObject(root, "processes"), *item, *h;
	char text[1024];

	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->procs[i];

		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "path", p->alias ? p->alias : p->path);
		cJSON_AddBoolToObject(item, "chosen", i == set->chosen);
		if (p->error) {
			cJSON_AddStringToObject(item, "error", p->error);
			cJSON_AddItemToArray(a, item);
			continue;
		}
		cJSON_AddNullToObject(item, "error");
		cJSON_AddNumberToObject(item, "pid", p->t.header.pid);
		cJSON_AddNumberToObject(item, "ppid", p->t.header.ppid);
		cJSON_AddStringToObject(item, "program", trace_proc_program(p));
		cJSON_AddStringToObject(item, "command", p->t.header.command);
		cJSON_AddStringToObject(item, "state", trace_state_name(p->t.header.state));
		cJSON_AddNumberToObject(item, "calls", (double)p->stats.calls[0]);
		cJSON_AddNumberToObject(item, "peak_live_bytes", (double)p->stats.peak_live_bytes);
		if (p->t.header.anon_peak_kib && p->t.header.state != TRACE_STATE_WRITING)
			cJSON_AddNumberToObject(item, "peak_anon_bytes", 1024.0 * p->t.header.anon_peak_kib);
		if (p->hint) {
			h = cJSON_AddObjectToObject(item, "hint");
			cJSON_AddStringToObject(h, "setting", p->hint->setting);
			cJSON_AddStringToObject(h, "text", trace_proc_hint_text(p, text, sizeof(text)));
		} else {
			cJSON_AddNullToObject(item, "hint");
		}
		cJSON_AddItemToArray(a, item);
	}
	cJSON_AddStringToObject(root, "advise_replays", trace_set_choice_text(set, text, sizeof(text)));
}

static int write_json(FILE *out, const struct trace_set *set)
{
	const struct trace_proc *p = &set->procs[set->chosen];
	const char *path = p->path;
	const struct trace *t = &p->t;
	const struct trace_stats *st = &p->stats;
	cJSON *root = cJSON_CreateObject(), *o, *a, *item;
	char reason[160];

	if (!root)
		return -1;
	o = cJSON_AddObjectToObject(root, "trace");
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "format_version", t->header.version);
	cJSON_AddNumberToObject(o, "pid", t->header.pid);
	cJSON_AddStringToObject(o, "command", t->header.command);
	cJSON_AddStringToObject(o, "state", trace_state_name(t->header.state));
	cJSON_AddBoolToObject(o, "cut_short", t->header.state == TRACE_STATE_WRITING);
	cJSON_AddNumberToObject(o, "lost_calls", (double)t->header.lost);
	if (t->header.lost)
		cJSON_AddStringToObject(o, "lost_why", trace_lost_reason(&t->header, reason, sizeof(reason)));
	else
		cJSON_AddNullToObject(o, "lost_why");
	cJSON_AddNumberToObject(o, "unsealed_chunks", (double)t->unsealed_chunks);
	cJSON_AddNumberToObject(o, "bytes", (double)t->trace_bytes);
	add_json_program(o, t, st->calls[0] + t->header.lost);
	o = cJSON_AddObjectToObject(root, "calls");
	for (unsigned k = 1; k < TRACE_KINDS; k++)
		cJSON_AddNumberToObject(o, trace_kind_name(k), (double)st->calls[k]);
	cJSON_AddNumberToObject(o, "total", (double)st->calls[0]);
	cJSON_AddNumberToObject(root, "failed_allocations", (double)st->failed);
	cJSON_AddNumberToObject(root, "free_null", (double)st->free_null);
	cJSON_AddNumberToObject(root, "unknown_frees", (double)st->unknown_frees);
	cJSON_AddNumberToObject(root, "requested_bytes", (double)st->requested_bytes);
	cJSON_AddNumberToObject(root, "peak_live_bytes", (double)st->peak_live_bytes);
	cJSON_AddNumberToObject(root, "peak_live_chunks", (double)st->peak_live_chunks);
	cJSON_AddNumberToObject(root, "peak_at_call", (double)st->peak_at_call);
	cJSON_AddNumberToObject(root, "live_bytes_end", (double)st->live_bytes_end);
	cJSON_AddNumberToObject(root, "live_chunks_end", (double)st->live_chunks_end);
	a = cJSON_AddArrayToObject(root, "size_histogram");
	for (unsigned b = 0; b < TRACE_SIZE_BUCKETS; b++) {
		if (!st->size_buckets[b])
			continue;
		item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "max_bytes", (double)bucket_max(b));
		cJSON_AddNumberToObject(item, "count", (double)st->size_buckets[b]);
		cJSON_AddItemToArray(a, item);
	}
	a = cJSON_AddArrayToObject(root, "top_sizes");
	for (unsigned i = 0; i < st->ntop; i++) {
		item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "bytes", (double)st->top_size[i]);
		cJSON_AddNumberToObject(item, "count", (double)st->top_count[i]);
		cJSON_AddItemToArray(a, item);
	}
	a = cJSON_AddArrayToObject(root, "lifetimes");
	for (unsigned b = 0; b < TRACE_LIFETIME_BUCKETS; b++) {
		item = cJSON_CreateObject();
		if (lifetime_max_calls[b])
			cJSON_AddNumberToObject(item, "max_calls", (double)lifetime_max_calls[b]);
		else
			cJSON_AddNullToObject(item, "max_calls");
		cJSON_AddNumberToObject(item, "count", (double)st->lifetimes[b]);
		cJSON_AddItemToArray(a, item);
	}
	cJSON_AddNumberToObject(root, "median_lifetime_calls", (double)st->median_lifetime_calls);
	cJSON_AddNumberToObject(root, "cross_thread_frees", (double)st->cross_thread_frees);
	cJSON_AddNumberToObject(root, "paged_frees", (double)st->paged_frees);
	cJSON_AddNumberToObject(root, "unwritten_bytes", (double)st->unwritten_bytes);
	a = cJSON_AddArrayToObject(root, "threads");
	for (uint32_t i = 0; i < st->nthreads; i++) {
		item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "index", st->threads[i].index);
		cJSON_AddNumberToObject(item, "calls", (double)st->threads[i].calls);
		cJSON_AddNumberToObject(item, "allocations", (double)st->threads[i].allocations);
		cJSON_AddNumberToObject(item, "frees", (double)st->threads[i].frees);
		cJSON_AddNumberToObject(item, "bytes", (double)st->threads[i].bytes);
		cJSON_AddNumberToObject(item, "remote_frees", (double)st->threads[i].remote_frees);
		cJSON_AddItemToArray(a, item);
	}
	write_json_processes(root, set);
	return json_write_document(out, root);
}

static const struct trace_writer writers[] = {
	{ "text", write_text },
	{ "json", write_json },
	{ NULL, NULL },
};

/* What the report command's options fill: the context of its option table. */
struct report_cmd {
	const struct trace_writer *writer;  /* --format */
	const char *output_path;            /* -o FILE, or NULL */
};

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct report_cmd *)ctx)->writer = CLI_FORMAT(writers, arg, " for report");
	return 0;
}

static const struct cli_option report_options[] = {
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format, "text (default) or json") },
	{ OPT_FILENAME('o', "output", "FILE", report_cmd, output_path,
		       "write the report to FILE instead of standard output") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void report_help(FILE *out)
{
	fputs(
"usage: allocbench report TRACE... [options]\n"
"\n"
"Reads a trace that allocbench record wrote and prints what the program\n"
"allocated: its processes, calls by kind, sizes, the peak of live bytes,\n"
"lifetimes and threads. A trace cut short is read up to its last record.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, report_options, 25);
	fputs(
"\n"
"Exit status: 0, 1 the report could not be written, 2 bad usage or a truncated\n"
"or damaged trace.\n"
"allocbench-report(1) says more: every figure and JSON member.\n", out);
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd cmd = { .writer = &writers[0] };
	const struct trace_writer *writer;
	const char *output_path;
	struct cli_parser parser;
	struct trace_set set;
	struct output out;
	char why[4096 + 512];
	int ret = 2, n;

	cli_parser_init(&parser, report_options, report_help, "allocbench report --help", argc, argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	writer = cmd.writer;
	output_path = cmd.output_path;
	n = argc - optind;
	if (n < 1)
		usage_die("report needs a trace (see allocbench report --help)");
	if (output_refuse_input(output_path, (const char *const *)argv + optind, n))
		return 2;
	if (n == 1 ? trace_set_find(argv[optind], 0, &set, why, sizeof(why)) :
	    trace_set_paths((const char *const *)argv + optind, (size_t)n, &set, why, sizeof(why))) {
		if (!signal_caught)  /* else it ends by the signal, saying nothing */
			error("%s", why);
		goto done;
	}
	if (set.chosen >= set.n) {
		if (!signal_caught)
			error("no trace of the recording '%s' could be read", argv[optind]);
		goto done;
	}
	if (output_open(&out, output_path))
		goto done;
	errno = 0;
	if (writer->write(out.file, &set)) {
		if (!broken_pipe(errno))
			error("cannot write the report to '%s': %s",
			      output_path ? output_path : "standard output", strerror(errno ? errno : EIO));
		output_abort(&out);
		ret = 1;
	} else {
		ret = output_commit(&out) ? 1 : 0;
	}
done:
	trace_set_release(&set);
	return ret;
}
