/*
 * counters.h - event counts around the measured loops, through PAPI:
 * hardware presets (PAPI_TOT_CYC), native events (perf::PAGE-FAULTS) and the
 * program's own Software Defined Events (libsde), exported under the library
 * name "allocbench" and read back through PAPI like any other event.
 *
 * A counter that cannot be counted never fails a measurement: it gets a
 * status code, and counters_check() turns codes into reasons in PAPI's own
 * words (the component's disabled reason, PAPI_strerror) plus a hint on how
 * to fix it where there is one.
 *
 * In the measuring child: counters_open() once, then around each loop
 * counters_start() right before it and counters_stop() right after it;
 * nothing inside a loop. The program's own events cost nothing in the loop:
 * allocs, frees and bytes_requested are the loop's own counts, stored into
 * registered plain variables after it (counters_note_allocs/frees), and the
 * backends' figures (the pool's blocks, the arena's region) are read from
 * their own fields by readers the backends attach (counters_attach_reader()),
 * called only when PAPI reads the counters.
 *
 * PAPI is not linked: its shared libraries are loaded (dlopen) by the first
 * counters_open() or counters_check() that has an event to count, so that a
 * measuring process that counts nothing never pays for loading them. When
 * they cannot be loaded every event's status is COUNTERS_E_NOT_LOADED, and
 * counters_check() gives the dynamic loader's reason.
 *
 * Built with make PAPI=0 the same functions exist (counters_nopapi.c, in
 * place of counters_papi.c and counters_explain.c) and every event's status
 * is COUNTERS_E_NOT_BUILT.
 */
#ifndef ALLOCBENCH_COUNTERS_H
#define ALLOCBENCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define COUNTERS_MAX 16           /* events per run */
#define COUNTERS_NAME_MAX 128     /* bytes of an event name with its terminator (PAPI_MAX_STR_LEN) */
#define COUNTERS_ARG_MAX (COUNTERS_MAX * COUNTERS_NAME_MAX) /* counters_list_format() */
#define COUNTERS_REASON_MAX 1280  /* a reason: a component's disabled reason is up to 1024 */
#define COUNTERS_HINT_MAX 256
#define COUNTERS_DESC_MAX 160

/* The full PAPI name of the program's own events: sde:::allocbench::NAME. */
#define COUNTERS_SDE_LIBRARY "allocbench"
#define COUNTERS_SDE_PREFIX "sde:::" COUNTERS_SDE_LIBRARY "::"

/* The hardware presets of the default list; the program's own events follow them. */
#define COUNTERS_DEFAULT_PRESETS "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_TLB_DM"

/* Status of one event: 0 counted, < 0 a PAPI error code, > 0 one of these. */
#define COUNTERS_OK 0
#define COUNTERS_E_NOT_BUILT 1    /* built with make PAPI=0 */
#define COUNTERS_E_UNKNOWN_SDE 2  /* sde:::allocbench::X that allocbench does not export */
#define COUNTERS_E_NOT_LOADED 3   /* PAPI's shared libraries cannot be loaded (dlopen) */

/* Where an event failed; kept with its status to say what PAPI refused. */
enum counters_stage {
	COUNTERS_STAGE_NONE,
	COUNTERS_STAGE_INIT,   /* PAPI_library_init, or creating an event set */
	COUNTERS_STAGE_NAME,   /* PAPI_event_name_to_code: PAPI does not know the name */
	COUNTERS_STAGE_ADD,    /* PAPI_add_event */
	COUNTERS_STAGE_START,  /* PAPI_start (a trial start when opening, or around a loop) */
	COUNTERS_STAGE_STOP,   /* PAPI_stop */
};

/* Which loop a reading belongs to. */
enum counters_loop {
	COUNTERS_ALLOC_LOOP,
	COUNTERS_FREE_LOOP,
};

/* The events of a run, in the order given; names as PAPI knows them. */
struct counter_list {
	size_t n;
	char names[COUNTERS_MAX][COUNTERS_NAME_MAX];
};

/*
 * What one measuring child counted; plain data, part of struct sample, sent
 * over a pipe. Slot I is event I of the run's counter_list.
 */
struct counter_values {
	uint32_t n;                        /* events requested (0: not counting) */
	int32_t status[COUNTERS_MAX];      /* COUNTERS_OK, or why not (see above) */
	uint8_t stage[COUNTERS_MAX];       /* enum counters_stage of a failure */
	uint64_t alloc_loop[COUNTERS_MAX]; /* count over the allocation loop */
	uint64_t free_loop[COUNTERS_MAX];  /* count over the free loop (and the backend's teardown) */
};

/* Whether an event can be counted here, and if not why: for people. */
struct counter_status {
	int ok;                              /* 1: it can be counted on this machine */
	int unknown;                         /* 1: no event of this name exists here (a
						typo: the hint names the nearest known
						names), as against one that exists but
						cannot be counted on this machine */
	char nearest[COUNTERS_HINT_MAX];     /* when unknown: the nearest known names,
						"PAPI_TOT_CYC, PAPI_TOT_INS", or "" */
	char component[32];                  /* PAPI component that counts it, or "" */
	char description[COUNTERS_DESC_MAX]; /* what it counts (PAPI's description), or "" */
	char reason[COUNTERS_REASON_MAX];    /* why not, when !ok */
	char hint[COUNTERS_HINT_MAX];        /* how to make it countable, or "" */
};

/* The availability of a whole list, as `allocbench counters` prints it. */
struct counters_check {
	struct counter_list list;
	char papi_version[32];               /* "7.0.0.0"; "" when PAPI is not there */
	struct counter_status events[COUNTERS_MAX];
};

/* The child's open counters: PAPI event sets, one per component. */
struct counters {
	struct counter_list list;
	int32_t status[COUNTERS_MAX];        /* as in struct counter_values */
	uint8_t stage[COUNTERS_MAX];
	int papi_ready;                      /* PAPI loaded, and PAPI_library_init succeeded */
	size_t nsets;
	int sets[COUNTERS_MAX];              /* PAPI event sets */
	int set_component[COUNTERS_MAX];     /* the component index of each set */
	size_t set_size[COUNTERS_MAX];       /* events in each set */
	int event_set[COUNTERS_MAX];         /* index into sets of each event, or -1 */
	int event_slot[COUNTERS_MAX];        /* its position in that set */
	int event_component[COUNTERS_MAX];   /* its PAPI component index, or -1 */
	void *sde;                           /* the libsde handle (kept by libsde), or NULL */
};

/* The program's own events, without the prefix, NULL-terminated. */
extern const char *const counters_sde_names[];

/*
 * Parses a --counters LIST into *LIST: comma-separated PAPI event names,
 * where "allocbench::NAME" stands for sde:::allocbench::NAME, "allocbench"
 * for all of the program's own events, "default" for the default list, and
 * "none" (alone) for no events. Repeated events are kept once. Returns 0, or
 * -1 with the offending item copied into BAD (BAD_SIZE bytes) and *WHY set:
 * an empty item, a name too long, "none" with other events, more than
 * COUNTERS_MAX events.
 */
int counters_parse_list(const char *text, struct counter_list *list,
			char *bad, size_t bad_size, const char **why);

/* The default list: the presets above and every event of the program's own. */
void counters_default_list(struct counter_list *list);

/*
 * Writes LIST as counters_parse_list() reads it back ("none" when empty) into
 * BUF of SIZE bytes (COUNTERS_ARG_MAX is enough). Returns 0, or -1 if it does
 * not fit.
 */
int counters_list_format(const struct counter_list *list, char *buf, size_t size);

/*
 * The name to show in a table: NAME without "sde:::allocbench::"; the full
 * name otherwise. Points into NAME.
 */
const char *counters_short_name(const char *name);

/*
 * Opens LIST's events in this process: initialises PAPI, registers the
 * program's own events with libsde, and adds each event to the event set of
 * its component, trying a start and a stop after each addition so that an
 * event PAPI cannot count (alone, or with those before it) is left out with
 * its reason code instead of spoiling the others. Never fails as a whole:
 * returns the number of events that can be counted (0 when PAPI cannot
 * initialise or LIST is empty). Call counters_close() in any case.
 */
int counters_open(struct counters *counters, const struct counter_list *list);

/* Starts every event set; right before a loop. COUNTERS may be NULL. */
void counters_start(struct counters *counters);

/*
 * Stops every event set right after LOOP and stores its counts and every
 * event's status into *OUT. COUNTERS may be NULL (OUT is left alone).
 */
void counters_stop(struct counters *counters, enum counters_loop loop,
		   struct counter_values *out);

/*
 * Destroys the event sets and shuts PAPI down. The program's own events stay
 * registered with libsde for the life of the process (libsde cannot be
 * initialised again after its shutdown).
 */
void counters_close(struct counters *counters);

/*
 * The program's own events, updated outside the loops: after the allocation
 * loop allocated CHUNKS chunks of SIZE bytes (allocs += CHUNKS,
 * bytes_requested += CHUNKS * SIZE), after the free loop released CHUNKS.
 */
void counters_note_allocs(size_t chunks, size_t size);
void counters_note_frees(size_t chunks);

/*
 * Attaches READER to NAME, one of the program's own events that a backend's
 * own figure gives (pool_blocks, pool_bytes_reserved, arena_bytes_reserved;
 * NAME without the prefix): until detached with a NULL READER, the event
 * reads READER(CTX), which must not fail. A reader is called only when PAPI
 * reads the counters (at counters_stop()), never in a loop, so it costs the
 * loop nothing; an event with nothing attached reads 0, and counters_close()
 * detaches them all. Returns 0, or -1 after an error when NAME is not such
 * an event (a program error: the names are fixed, see counters_sde_names).
 */
int counters_attach_reader(const char *name, long long (*reader)(const void *ctx),
			   const void *ctx);

/*
 * Checks every event of LIST on this machine with counters_open(), and
 * writes for each whether it can be counted and if not why, in PAPI's own
 * words, with a hint where there is one. Never fails; PAPI is shut down
 * again before it returns.
 */
void counters_check(const struct counter_list *list, struct counters_check *check);

/*
 * Folds what a measuring child reported into CHECK: an event the check found
 * countable but the child could not count gets the child's reason. VALUES
 * with n == 0 (nothing counted, or a failed measurement) change nothing.
 */
void counters_check_merge(struct counters_check *check, const struct counter_values *values);

#endif
