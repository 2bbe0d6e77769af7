/*
 * Unit tests for util.c's name_distance() and nearest_names(), the "did you
 * mean" of mistyped commands, backends and events: one typo (a letter more,
 * less, changed or two swapped) is distance 1, case is ignored, and only
 * names near enough are offered, the nearest first.
 */
#include "check.h"
#include "platform/util.h"

#include <string.h>

int main(void)
{
	static const char *const backends[] = { "malloc", "pool", "pool-locked", "arena",
						"jemalloc", "mimalloc", "tcmalloc" };
	static const char *const events[] = { "PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM",
					      "PAPI_TLB_DM", "PAPI_TOT_IIS" };
	char buf[128];

	CHECK("same name: 0", name_distance("pool", "pool") == 0);
	CHECK("case ignored", name_distance("POOL", "pool") == 0);
	CHECK("one letter more", name_distance("PAPI_TOT_CYCS", "PAPI_TOT_CYC") == 1);
	CHECK("one letter less", name_distance("aren", "arena") == 1);
	CHECK("one letter changed", name_distance("pool", "poll") == 1);
	CHECK("two neighbours swapped", name_distance("mallco", "malloc") == 1);
	CHECK("unrelated names are far", name_distance("arena", "tcmalloc") >= 5);
	CHECK("empty against a name: its length", name_distance("", "pool") == 4);

	CHECK("mallco: malloc", nearest_names("mallco", backends, 7, 3, buf, sizeof(buf)) >= 1 &&
	      !strncmp(buf, "malloc", 6));
	CHECK("arean: arena alone", nearest_names("arean", backends, 7, 3, buf, sizeof(buf)) == 1 &&
	      !strcmp(buf, "arena"));
	CHECK("PAPI_TOT_CYCS: PAPI_TOT_CYC first",
	      nearest_names("PAPI_TOT_CYCS", events, 5, 3, buf, sizeof(buf)) >= 1 &&
	      !strncmp(buf, "PAPI_TOT_CYC", 12) && (buf[12] == '\0' || buf[12] == ','));
	CHECK("nothing near: none, empty text",
	      nearest_names("xyzzy", backends, 7, 3, buf, sizeof(buf)) == 0 && !*buf);
	CHECK("at most MAX", nearest_names("PAPI_TOT_XXX", events, 5, 1, buf, sizeof(buf)) == 1 &&
	      !strchr(buf, ','));
	CHECK("a list of names, comma-separated",
	      nearest_names("malloc2", backends, 7, 3, buf, sizeof(buf)) >= 1 && !strncmp(buf, "malloc", 6));
	return check_exit();
}
