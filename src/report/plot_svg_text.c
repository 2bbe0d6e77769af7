/*
 * plot_svg_text.c - the words around a chart (plot_svg_text.h): its title,
 * the subtitle that says what was measured where, and the notes below.
 */
#include "report/plot.h"
#include "report/plot_svg_text.h"
#include "report/svg.h"
#include "platform/util.h"

#include <stdio.h>
#include <string.h>

#define LINE_HEIGHT 16.0
#define NOTE_HEIGHT 15.0
#define MAX_FAILURE_NOTES 6

/* "fill, 16 MiB per measurement, touch pages, median of 3 runs". */
static void describe_config(char *buf, size_t size, const struct result_file *file)
{
	const char *sanitizers = results_file_string(file, "tool.sanitizers");
	char total[32] = "";
	size_t used;

	if (file->total_bytes)
		format_bytes(total, sizeof(total), file->total_bytes);
	used = (size_t)snprintf(buf, size, "%s%s%s%s%s", file->workload,
				*total ? ", " : "", total, *total ? " per measurement" : "",
				*file->touch ? ", touch " : "");
	if (used < size)
		used += (size_t)snprintf(buf + used, size - used, "%s", file->touch);
	if (used < size && file->repeat > 1)
		used += (size_t)snprintf(buf + used, size - used, ", median of %u runs",
					 file->repeat);
	else if (used < size && file->repeat == 1)
		used += (size_t)snprintf(buf + used, size - used, ", 1 run");
	if (used < size && sanitizers && *sanitizers)
		snprintf(buf + used, size - used, " (allocbench built with -fsanitize=%s)",
			 sanitizers);
}

/* "host vm: Linux 6.1 x86_64, glibc 2.36, 2 CPUs, AMD EPYC". */
static void describe_host(char *buf, size_t size, const struct result_file *file)
{
	const char *kernel = results_file_string(file, "host.kernel");
	const char *machine = results_file_string(file, "host.machine");
	const char *libc = results_file_string(file, "host.libc");
	const char *libc_version = results_file_string(file, "host.libc_version");
	const char *cpu = results_file_string(file, "host.cpu_model");
	double cpus = 0;
	size_t used;

	results_file_number(file, "host.cpus", &cpus);
	used = (size_t)snprintf(buf, size, "host %s:", *file->hostname ? file->hostname : "unknown");
	if (used < size && kernel)
		used += (size_t)snprintf(buf + used, size - used, " %s%s%s,", kernel,
					 machine ? " " : "", machine ? machine : "");
	if (used < size && libc)
		used += (size_t)snprintf(buf + used, size - used, " %s%s%s,", libc,
					 libc_version ? " " : "", libc_version ? libc_version : "");
	if (used < size && cpus >= 1)
		used += (size_t)snprintf(buf + used, size - used, " %.0f CPU%s,", cpus,
					 cpus == 1 ? "" : "s");
	if (used < size && cpu)
		used += (size_t)snprintf(buf + used, size - used, " %s,", cpu);
	if (used < size && (buf[used - 1] == ',' || buf[used - 1] == ':'))
		buf[used - 1] = '\0';   /* "host vm" when the report says no more */
}

/* "allocbench: overhead per chunk and time per allocation by chunk size";
 * a count of the metrics when their names would not fit on one line. */
void plot_svg_title(FILE *out, const struct plot *plot)
{
	char title[512];
	size_t used = 0, nmetrics = 0, shown = 0;

	/* With --facet, the panels of a metric follow one another: name it once. */
	for (size_t p = 0; p < plot->npanels; p++)
		nmetrics += !p || strcmp(plot->panels[p].metric, plot->panels[p - 1].metric);
	for (size_t p = 0; p < plot->npanels && used < sizeof(title); p++) {
		if (p && !strcmp(plot->panels[p].metric, plot->panels[p - 1].metric))
			continue;
		used += (size_t)snprintf(title + used, sizeof(title) - used, "%s%s",
					 !shown ? "" : shown + 1 == nmetrics ? " and " : ", ",
					 plot->panels[p].what);
		shown++;
	}
	if (used > 62)
		snprintf(title, sizeof(title), "%zu metrics", nmetrics);
	svg_put_textf(out, 0, "allocbench: %s by %s", title, plot->bars ? "backend" : "chunk size");
}

/* The legend name of a series: "pool", "pool (churn)". */
void plot_svg_series_name(char *buf, size_t size, const struct plot_series *s)
{
	if (s->workload_shown)
		snprintf(buf, size, "%s (%s)", s->backend, s->workload ? s->workload : "");
	else
		snprintf(buf, size, "%s", s->backend);
}

/* Writes the notes below the chart from TOP; returns the y below them. */
double plot_svg_notes(FILE *out, const struct plot *plot, double top)
{
	double y = top;
	size_t shown = 0;

	fputs("<g class=\"notes\" font-size=\"11\" fill=\"#444444\">\n", out);
	for (size_t si = 0; si < plot->nseries; si++) {
		const struct plot_series *s = &plot->series[si];

		for (size_t f = 0; f < s->nfailures; f++, shown++) {
			char name[256];

			if (shown >= MAX_FAILURE_NOTES)
				continue;
			plot_svg_series_name(name, sizeof(name), s);
			fprintf(out, "<text class=\"note-failed\" x=\"20\" y=\"%.1f\">", y);
			svg_put_textf(out, 140, "\xc3\x97 failed: %s at %llu B%s%s: %s", name,
				  (unsigned long long)s->failures[f].size_bytes,
				  plot->ninputs > 1 ? " in " : "",
				  plot->ninputs > 1 ? plot->inputs[s->input].label : "",
				  s->failures[f].error ? s->failures[f].error : "no reason given");
			fputs("</text>\n", out);
			y += NOTE_HEIGHT;
		}
	}
	if (shown > MAX_FAILURE_NOTES) {
		fprintf(out, "<text x=\"20\" y=\"%.1f\">\xc3\x97 and %zu more failed results "
			"(see the reports)</text>\n", y, shown - MAX_FAILURE_NOTES);
		y += NOTE_HEIGHT;
	}
	if (plot->mixed_rows) {
		fprintf(out, "<text class=\"note-mixed\" x=\"20\" y=\"%.1f\">%zu result%s of a "
			"size mix (size 0) %s not on the size axis and not plotted</text>\n", y,
			plot->mixed_rows, plot->mixed_rows == 1 ? "" : "s",
			plot->mixed_rows == 1 ? "is" : "are");
		y += NOTE_HEIGHT;
	}
	for (size_t p = 0; p < plot->npanels; p++) {
		if (!plot->panels[p].missing)
			continue;
		fprintf(out, "<text class=\"note-missing\" x=\"20\" y=\"%.1f\">", y);
		svg_put_textf(out, 140, "%zu successful result%s without a value for %s, left out",
			  plot->panels[p].missing, plot->panels[p].missing == 1 ? "" : "s",
			  plot->panels[p].field);
		fputs("</text>\n", out);
		y += NOTE_HEIGHT;
	}
	fprintf(out, "<text x=\"20\" y=\"%.1f\">", y);
	svg_put_textf(out, 0, "allocbench %s plot of ", ALLOCBENCH_VERSION);
	for (size_t in = 0; in < plot->ninputs; in++) {
		const struct result_file *file = plot->inputs[in].file;

		if (in && in >= 4) {
			svg_put_textf(out, 0, " and %zu more", plot->ninputs - in);
			break;
		}
		if (in)
			fputs(", ", out);
		svg_put_text(out, strcmp(file->path, "-") ? file->path : "standard input", 40);
		if (*file->created) {
			fputs(" (", out);
			svg_put_text(out, file->created, 32);
			fputs(")", out);
		}
	}
	fputs("</text>\n</g>\n", out);
	return y + NOTE_HEIGHT;
}

/* Writes one subtitle line at *Y and moves *Y down. */
static void subtitle_line(FILE *out, double *y, const char *cls, const char *text)
{
	fprintf(out, "<text class=\"%s\" x=\"20\" y=\"%.1f\">", cls, *y);
	svg_put_text(out, text, 136);
	fputs("</text>\n", out);
	*y += LINE_HEIGHT;
}

/* Writes the subtitle from Y: what was measured, on which host; once when
 * every file says the same, else a line per file. Returns the y below. */
double plot_svg_subtitle(FILE *out, const struct plot *plot, double y)
{
	char config0[512], host0[512], config[512], host[512], line[1100];
	int same_config = 1, same_host = 1;
	size_t shown = plot->ninputs > 4 ? 3 : plot->ninputs;

	describe_config(config0, sizeof(config0), plot->inputs[0].file);
	describe_host(host0, sizeof(host0), plot->inputs[0].file);
	for (size_t in = 1; in < plot->ninputs; in++) {
		describe_config(config, sizeof(config), plot->inputs[in].file);
		describe_host(host, sizeof(host), plot->inputs[in].file);
		same_config &= !strcmp(config, config0);
		same_host &= !strcmp(host, host0);
	}
	fputs("<g class=\"subtitle\" fill=\"#333333\">\n", out);
	if (same_config)
		subtitle_line(out, &y, "config", config0);
	for (size_t in = 0; (!same_config || !same_host) && in < shown; in++) {
		describe_config(config, sizeof(config), plot->inputs[in].file);
		describe_host(host, sizeof(host), plot->inputs[in].file);
		snprintf(line, sizeof(line), "%s: %s%s%s", plot->inputs[in].label,
			 same_config ? "" : config, same_config || same_host ? "" : "; ",
			 same_host ? "" : host);
		subtitle_line(out, &y, "file", line);
	}
	if ((!same_config || !same_host) && shown < plot->ninputs) {
		snprintf(line, sizeof(line), "and %zu more files, measured differently",
			 plot->ninputs - shown);
		subtitle_line(out, &y, "file", line);
	}
	if (same_host)
		subtitle_line(out, &y, "host", host0);
	fputs("</g>\n", out);
	return y;
}
