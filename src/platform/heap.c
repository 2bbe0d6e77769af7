/* heap.c - the measured allocator's functions, and the private zone (heap.h). */
#include "platform/heap.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Overridden by heap_interpose.c where it is linked in. */
__attribute__((weak)) const int heap_interposed = 0;

/* ---- the measured allocator ---- */

static struct heap_functions measured;
static int measured_found;

/*
 * Has the C library's malloc set itself up, in this thread, without
 * allocating anything.
 *
 * glibc sets its malloc up on the first call (ptmalloc_init() in
 * malloc/arena.c, up to glibc 2.41; 2.42 does it at start-up) and gives
 * the calling thread the main arena, whose count of attached threads starts
 * at 1 for it. That set-up takes no lock: it assumes the first call comes
 * from the main thread, before any other thread exists, as in any program
 * whose main thread calls malloc. Here the main thread never does (its
 * calls go to the zone), so in a measuring process with threads the first
 * calls of glibc's malloc came from several new threads at once: two of
 * them could both run the set-up and both take the main arena with its one
 * count, and the second to exit failed glibc's assertion
 * "a->attached_threads > 0" in __malloc_arena_thread_freeres (the replay's
 * per-thread mode, about once in 45 runs on a loaded machine).
 *
 * mallinfo2() runs the same set-up and only reads the arenas: no chunk is
 * allocated, no heap is grown, so the measured loops still find the
 * allocator as a fresh program does. It is glibc's own mallinfo2, looked up
 * in libc.so.6 itself (a preloaded allocator's would set that allocator up
 * instead). Without glibc, or with one older than 2.33, nothing is done.
 */
static void libc_malloc_init(void)
{
#ifdef __GLIBC__
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct mallinfo2 (*info)(void);

	if (!libc)
		return;
	*(void **)&info = dlsym(libc, "mallinfo2");
	if (info)
		(void)info();
	dlclose(libc);
#endif
}

const struct heap_functions *heap_measured(void)
{
	if (measured_found)
		return &measured;
	/*
	 * RTLD_NEXT: the definitions after this executable's own, that is the
	 * LD_PRELOAD libraries', then the C library's (or a sanitizer's).
	 */
	*(void **)&measured.malloc = dlsym(RTLD_NEXT, "malloc");
	*(void **)&measured.free = dlsym(RTLD_NEXT, "free");
	*(void **)&measured.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&measured.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&measured.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	*(void **)&measured.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	*(void **)&measured.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&measured.malloc_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
	if (!measured.malloc || !measured.free || !measured.calloc || !measured.realloc)
		return NULL;
	libc_malloc_init();
	measured_found = 1;
	return &measured;
}

/* ---- private mode ---- */

static volatile int private_mode = 1;

int heap_private_mode(void)
{
	return private_mode;
}

void heap_private_end(void)
{
	heap_measured();  /* while still private: dlsym may allocate */
	private_mode = 0;
}

/* ---- the zone ---- */

/*
 * Blocks of 32 << class bytes, carved from mappings that double in size
 * (4 MiB first, so an address-space limit of a test still leaves room), and
 * kept on one free list per class. Each block starts with a header; an
 * aligned allocation gets a second header just before the address it
 * returns, which says how far back the block's payload starts.
 */
#define ZONE_MAGIC 0x7a6f6e65u  /* "zone" */
#define ZONE_CLASSES 48
#define ZONE_REGIONS 40
#define ZONE_FIRST_REGION ((size_t)4 << 20)

struct zone_header {
	uint32_t magic;
	uint32_t class;
	uint64_t offset;  /* from the block's payload to the address given out */
};

struct zone_region {
	unsigned char *base;
	size_t size;
	size_t used;
};

static struct {
	pthread_mutex_t lock;
	struct zone_region regions[ZONE_REGIONS];
	unsigned nregions;
	void *free_list[ZONE_CLASSES];
	size_t mapped;
} zone = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t class_bytes(unsigned class)
{
	return (size_t)32 << class;
}

/* The smallest class whose payload holds SIZE, or -1 when none does. */
static int class_of(size_t size)
{
	for (unsigned c = 0; c < ZONE_CLASSES; c++)
		if (class_bytes(c) - sizeof(struct zone_header) >= size)
			return (int)c;
	return -1;
}

/* A new block of CLASS from the last region, or a new region. Under the lock. */
static void *zone_carve(unsigned class)
{
	size_t bytes = class_bytes(class), size;
	struct zone_region *r = zone.nregions ? &zone.regions[zone.nregions - 1] : NULL;
	void *base;

	if (r && r->size - r->used >= bytes) {
		void *block = r->base + r->used;

		r->used += bytes;
		return block;
	}
	if (zone.nregions == ZONE_REGIONS)
		return NULL;
	size = r ? r->size * 2 : ZONE_FIRST_REGION;
	while (size < bytes)
		size *= 2;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	r = &zone.regions[zone.nregions++];
	r->base = base;
	r->size = size;
	r->used = bytes;
	zone.mapped += size;
	return base;
}

static struct zone_header *header_of(const void *ptr)
{
	return (struct zone_header *)((uintptr_t)ptr - sizeof(struct zone_header));
}

/* A block of CLASS with its header written; returns its payload. */
static void *zone_get(unsigned class)
{
	struct zone_header *h;
	void *block;

	pthread_mutex_lock(&zone.lock);
	block = zone.free_list[class];
	if (block)
		zone.free_list[class] = *(void **)block;
	else
		block = zone_carve(class);
	pthread_mutex_unlock(&zone.lock);
	if (!block) {
		errno = ENOMEM;
		return NULL;
	}
	h = block;
	h->magic = ZONE_MAGIC;
	h->class = class;
	h->offset = 0;
	return h + 1;
}

int zone_owns(const void *ptr)
{
	uintptr_t p = (uintptr_t)ptr;
	int owns = 0;

	if (!ptr)
		return 0;
	pthread_mutex_lock(&zone.lock);
	for (unsigned i = 0; i < zone.nregions && !owns; i++)
		owns = p >= (uintptr_t)zone.regions[i].base &&
		       p < (uintptr_t)zone.regions[i].base + zone.regions[i].used;
	pthread_mutex_unlock(&zone.lock);
	return owns;
}

size_t zone_mapped_bytes(void)
{
	size_t mapped;

	pthread_mutex_lock(&zone.lock);
	mapped = zone.mapped;
	pthread_mutex_unlock(&zone.lock);
	return mapped;
}

void *zone_malloc(size_t size)
{
	int class = class_of(size ? size : 1);

	if (class < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return zone_get((unsigned)class);
}

void *zone_calloc(size_t count, size_t size)
{
	size_t bytes;
	void *ptr;

	if (__builtin_mul_overflow(count, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	ptr = zone_malloc(bytes);
	if (ptr)
		memset(ptr, 0, bytes);
	return ptr;
}

void *zone_memalign(size_t align, size_t size)
{
	struct zone_header *h;
	unsigned char *payload;
	uintptr_t p;
	size_t need;
	int class;

	if (align <= sizeof(struct zone_header))
		return zone_malloc(size);
	/* Room to move the address up to ALIGN, with a header before it. */
	if (__builtin_add_overflow(size, align + sizeof(struct zone_header), &need) ||
	    (class = class_of(need)) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	payload = zone_get((unsigned)class);
	if (!payload)
		return NULL;
	p = ((uintptr_t)payload + sizeof(struct zone_header) + align - 1) & ~(uintptr_t)(align - 1);
	h = header_of((void *)p);
	h->magic = ZONE_MAGIC;
	h->class = (uint32_t)class;
	h->offset = p - (uintptr_t)payload;
	return (void *)p;
}

void zone_free(void *ptr)
{
	struct zone_header *h;
	uint32_t class;
	void *block;

	if (!ptr)
		return;
	h = header_of(ptr);
	block = (unsigned char *)ptr - h->offset - sizeof(struct zone_header);
	class = h->class;
	if (h->magic != ZONE_MAGIC || class >= ZONE_CLASSES)
		return;  /* not ours, or freed twice: leak it rather than corrupt the lists */
	((struct zone_header *)block)->magic = 0;
	h->magic = 0;
	/*
	 * At offset 0 the block is the header itself: the link below overwrites
	 * h->class, which is why it was read first.
	 */
	pthread_mutex_lock(&zone.lock);
	*(void **)block = zone.free_list[class];
	zone.free_list[class] = block;
	pthread_mutex_unlock(&zone.lock);
}

size_t zone_usable_size(const void *ptr)
{
	const struct zone_header *h;

	if (!ptr)
		return 0;
	h = header_of(ptr);
	return class_bytes(h->class) - sizeof(struct zone_header) - h->offset;
}

void *zone_realloc(void *ptr, size_t size)
{
	size_t old;
	void *grown;

	if (!ptr)
		return zone_malloc(size);
	old = zone_usable_size(ptr);
	if (size <= old && header_of(ptr)->offset == 0)
		return ptr;
	grown = zone_malloc(size);
	if (!grown)
		return NULL;
	memcpy(grown, ptr, old < size ? old : size);
	zone_free(ptr);
	return grown;
}
