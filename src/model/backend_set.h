/*
 * backend_set.h - the backends one run measures: --backend LIST (built-in
 * backends, known third-party allocators, --preload libraries, "all"),
 * --preload NAME=PATH, and the 32-bit rows of --abi. Kept in struct
 * run_config's backends, preloads, skipped and abi_rows. Every function
 * returns an error (-1 after error(), naming the bad input) instead of
 * exiting; the command turns it into exit status 2.
 */
#ifndef ALLOCBENCH_BACKEND_SET_H
#define ALLOCBENCH_BACKEND_SET_H

struct backend;
struct run_config;

/*
 * --preload SPEC (NAME=PATH): adds a preloaded backend to CONFIG, measured
 * once --backend names it. Returns 0, or -1 after an error (malformed, or
 * NAME given twice).
 */
int backend_set_preload(struct run_config *config, const char *spec);

/*
 * --backend TEXT: fills CONFIG's backends (replacing any), for the
 * workload CONFIG names (config->workload and replay_per_thread set
 * before). "all" is every backend that can do that workload: every
 * built-in one that can, every installed known allocator, every --preload;
 * what it leaves out goes into config->skipped and a warning. Returns 0,
 * 1 when TEXT is "list" (nothing set: the caller lists the backends), or
 * -1 after an error naming the bad item.
 */
int backend_set_parse(struct run_config *config, const char *text);

/*
 * --abi TEXT (NULL: 64 alone): CONFIG's word sizes, each made ready
 * (abi_prepare()); for 32 every backend gets its 32-bit row after (or, for
 * --abi 32 alone, instead of) its own. ALL: --backend all, whose backends
 * without a 32-bit row are skipped instead of refused. Returns 0 or -1
 * after an error.
 */
int backend_set_abis(struct run_config *config, const char *text, int all);

/*
 * Refuses (-1 after an error) a --pool-block larger than a pool of the
 * chunks measured can address: its links count alignments in 32 bits
 * (pool_block_limit()).
 */
int backend_set_check_pool_block(const struct run_config *config);

/* Frees the backends, preloads, skips and 32-bit rows of CONFIG. */
void backend_set_release(struct run_config *config);

#endif
