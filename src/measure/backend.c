#include "measure/backend.h"

#include <stddef.h>
#include <string.h>

const struct backend *const backend_table[] = {
	&backend_malloc,
	&backend_pool,
	&backend_pool_locked,
	&backend_arena,
	NULL,
};

const struct backend *backend_find(const char *name)
{
	for (size_t i = 0; backend_table[i]; i++)
		if (!strcmp(backend_table[i]->name, name))
			return backend_table[i];
	return NULL;
}

size_t backend_malloc_alignment(void)
{
	return _Alignof(max_align_t);
}
