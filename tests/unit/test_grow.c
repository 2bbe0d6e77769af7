/*
 * Unit tests for util.c's grow_array() and ALLOC_GROW: room for one more
 * element, the contents kept, the capacity grown rarely, and a size that
 * would overflow refused with the array unchanged.
 */
#include "check.h"
#include "platform/util.h"

#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	size_t *values = NULL, n = 0, alloc = 0, grown = 0, ok = 1;
	char *bytes = NULL;
	size_t bytes_alloc = 0;

	for (size_t i = 0; i < 1000; i++) {
		size_t before = alloc;

		if (ALLOC_GROW(values, n, alloc)) {
			ok = 0;
			break;
		}
		grown += alloc != before;
		values[n++] = i * 7;
	}
	CHECK("ALLOC_GROW makes room for 1000 appends", ok && n == 1000 && alloc >= n);
	for (size_t i = 0; ok && i < n; i++)
		ok = values[i] == i * 7;
	CHECK("the contents survive every growth", ok);
	CHECK("the capacity grows by half again, not by one", grown > 1 && grown < 20);
	grown = alloc;
	CHECK("no growth while there is room",
	      n < alloc && !ALLOC_GROW(values, n, alloc) && alloc == grown);

	CHECK("a count that would overflow is refused",
	      grow_array(&bytes, &bytes_alloc, SIZE_MAX - 1, 1) == -1);
	CHECK("the array is unchanged after a refusal", !bytes && !bytes_alloc);
	n = 0;
	alloc = 0;
	free(values);
	values = NULL;
	CHECK("an element size that would overflow is refused",
	      grow_array(&values, &alloc, n, SIZE_MAX / 8) == -1 && !values && !alloc);
	return check_exit();
}
