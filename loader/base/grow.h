/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable arrays: room for NEED elements, doubling from FIRST, so that n
 * appends cost O(n). On failure nothing moves and nothing leaks: the array
 * and its room stay as they were, for the caller to free or keep using.
 */
#ifndef PP_GROW_H
#define PP_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * *ARRP is the array (a pointer of any type), *CAP its room in elements of
 * ELEM bytes, MAX the most *CAP may hold. 0, or -ENOMEM.
 */
static inline int pp_grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t first,
			  size_t max)
{
	size_t n = *cap ? *cap : first;
	void *arr, *v;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > max / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > max || n > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr)); /* any object pointer, without aliasing it */
	v = realloc(arr, n * elem);
	if (!v)
		return -ENOMEM;
	memcpy(arrp, &v, sizeof(v));
	*cap = n;
	return 0;
}

/* Room for NEED elements in ARR (a T *), whose room CAP is an unsigned of any width. */
#define PP_GROW(arr, cap, need, first)                                                             \
	({                                                                                         \
		_Static_assert((__typeof__(cap))-1 > 0, "PP_GROW: an unsigned room");              \
		size_t c_ = (cap);                                                                 \
		int e_ = pp_grow(&(arr), &c_, (need), sizeof(*(arr)), (first),                     \
				 (size_t)(__typeof__(cap))-1);                                     \
		(cap) = (__typeof__(cap))c_;                                                       \
		e_;                                                                                \
	})

#endif
