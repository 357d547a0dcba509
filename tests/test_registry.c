/*
 * test_registry.c: the handle registry: handles resolve to their object until removed and never
 * again, a full registry refuses and a remove makes room, slots are reused (FIFO) without a stale
 * handle ever aliasing, worn-out slots retire, lookup by name (duplicates, accept, removal, many
 * names), tombstone names, allocation, and resolution on one thread while another inserts and
 * removes (run under the tsan preset).
 */
#include "test_support.h"

#include "registry.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLE_LIMIT (UINT64_C(1) << 53)
#define SLOT_MASK ((UINT64_C(1) << ONA__REGISTRY_SLOT_BITS) - 1)

/* The 0-based slot a handle names. */
static uint32_t slot_of(uint64_t h) {
    return (uint32_t)(h & SLOT_MASK) - 1;
}

static uint64_t insert(ona__registry *r, void *obj, const char *name) {
    uint64_t h = 0;
    ck_assert_int_eq(ona__registry_insert(r, obj, name, &h), 0);
    ck_assert_uint_ne(h, 0);
    ck_assert_uint_lt(h, HANDLE_LIMIT);
    return h;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

START_TEST(test_registry_insert_resolve_remove) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 8), 0);
    int a = 1, b = 2;
    uint64_t ha = insert(&r, &a, "a");
    uint64_t hb = insert(&r, &b, "b");
    ck_assert_uint_ne(ha, hb);
    ck_assert_ptr_eq(ona__registry_resolve(&r, ha), &a);
    ck_assert_ptr_eq(ona__registry_resolve(&r, hb), &b);
    ck_assert_uint_eq(ona__registry_count(&r), 2);

    ona__registry_remove(&r, ha);
    ck_assert_ptr_null(ona__registry_resolve(&r, ha));
    ck_assert_ptr_eq(ona__registry_resolve(&r, hb), &b);
    ck_assert_uint_eq(ona__registry_count(&r), 1);
    /* Removing a stale handle again changes nothing. */
    ona__registry_remove(&r, ha);
    ck_assert_uint_eq(ona__registry_count(&r), 1);
    ck_assert_ptr_eq(ona__registry_resolve(&r, hb), &b);

    ona__registry_remove(&r, hb);
    ck_assert_ptr_null(ona__registry_resolve(&r, hb));
    ck_assert_uint_eq(ona__registry_count(&r), 0);
    ona__registry_free(&r);
}
END_TEST

START_TEST(test_registry_rejects_bad_arguments) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 0), ONA_EINVAL);
    ck_assert_int_eq(ona__registry_init(&r, ONA__REGISTRY_MAX_CAPACITY + 1), ONA_EINVAL);
    ona__registry_free(&r); /* a failed init leaves nothing to free */
    ck_assert_int_eq(ona__registry_init(&r, 4), 0);
    uint64_t h = 99;
    ck_assert_int_eq(ona__registry_insert(&r, NULL, "x", &h), ONA_EINVAL);
    ck_assert_uint_eq(h, 0);
    int x = 0;
    ck_assert_int_eq(ona__registry_insert(&r, &x, "x", NULL), ONA_EINVAL);
    ck_assert_uint_eq(ona__registry_count(&r), 0);

    h = insert(&r, &x, "x");
    uint64_t generation = h >> ONA__REGISTRY_SLOT_BITS;
    /* Never valid: 0, a slot beyond the capacity, the right slot with another generation, a
     * value at or above 2^53 that has the live handle's low bits. */
    ck_assert_ptr_null(ona__registry_resolve(&r, 0));
    ck_assert_ptr_null(ona__registry_resolve(&r, (generation << ONA__REGISTRY_SLOT_BITS) | 5));
    ck_assert_ptr_null(ona__registry_resolve(&r, h + (UINT64_C(1) << ONA__REGISTRY_SLOT_BITS)));
    ck_assert_ptr_null(ona__registry_resolve(&r, h | HANDLE_LIMIT));
    ck_assert_ptr_null(ona__registry_resolve(&r, UINT64_MAX));
    ck_assert_ptr_eq(ona__registry_resolve(&r, h), &x);
    ona__registry_remove(&r, 0);
    ona__registry_remove(&r, h | HANDLE_LIMIT);
    ck_assert_ptr_eq(ona__registry_resolve(&r, h), &x);
    ck_assert_uint_eq(ona__registry_lookup(&r, NULL, NULL, NULL), 0);
    ck_assert_uint_eq(ona__registry_lookup(&r, "", NULL, NULL), 0);
    char buf[8];
    ck_assert_ptr_null(ona__registry_dead_name(&r, 0, buf, sizeof buf));
    ona__registry_free(&r);
    ona__registry_free(&r); /* freed twice: the second is a no-op */
}
END_TEST

START_TEST(test_registry_full_refuses_until_a_remove) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 4), 0);
    int objs[5];
    uint64_t h[4];
    for (int i = 0; i < 4; i++)
        h[i] = insert(&r, &objs[i], NULL);
    uint64_t extra = 99;
    ck_assert_int_eq(ona__registry_insert(&r, &objs[4], "extra", &extra), ONA_ELIMIT);
    ck_assert_uint_eq(extra, 0);
    ck_assert_uint_eq(ona__registry_count(&r), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_eq(ona__registry_resolve(&r, h[i]), &objs[i]);

    ona__registry_remove(&r, h[2]);
    extra = insert(&r, &objs[4], "extra");
    ck_assert_ptr_eq(ona__registry_resolve(&r, extra), &objs[4]);
    ck_assert_ptr_null(ona__registry_resolve(&r, h[2]));
    ck_assert_uint_eq(ona__registry_lookup(&r, "extra", NULL, NULL), extra);
    uint64_t more;
    ck_assert_int_eq(ona__registry_insert(&r, &objs[2], NULL, &more), ONA_ELIMIT);
    ona__registry_free(&r);
}
END_TEST

START_TEST(test_registry_million_cycles_reuse_slots) {
    enum { CAPACITY = 16, LIVE = 12, CYCLES = 1000000 };
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, CAPACITY), 0);
    int objs[LIVE];
    uint64_t live[LIVE];
    for (int i = 0; i < LIVE; i++)
        live[i] = insert(&r, &objs[i], "cycler");
    for (int n = 0; n < CYCLES; n++) {
        int i = n % LIVE;
        uint64_t old = live[i];
        ona__registry_remove(&r, old);
        uint64_t h = 0;
        int rc = ona__registry_insert(&r, &objs[i], "cycler", &h);
        if (rc != 0 || ona__registry_resolve(&r, h) != &objs[i] ||
            ona__registry_resolve(&r, old) != NULL)
            ck_abort_msg("cycle %d: insert returned %d, handle %llu", n, rc, (unsigned long long)h);
        live[i] = h;
    }
    ck_assert_uint_eq(ona__registry_count(&r), LIVE);
    for (int i = 0; i < LIVE; i++)
        ck_assert_ptr_eq(ona__registry_resolve(&r, live[i]), &objs[i]);
    ona__registry_free(&r);
}
END_TEST

/* The bug of handle_wrap: with 16-bit generations, the 65,536th reuse of a slot gave a stale
 * handle back to a new object. */
START_TEST(test_registry_reused_slot_never_revives_a_handle) {
    enum { REUSES = 200000 };
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 1), 0);
    int first_obj = 0, obj = 0;
    uint64_t *handles = malloc(sizeof *handles * (REUSES + 1));
    ck_assert_ptr_nonnull(handles);
    uint64_t first = insert(&r, &first_obj, "victim0");
    handles[0] = first;
    ona__registry_remove(&r, first);
    for (int n = 1; n <= REUSES; n++) {
        uint64_t h = 0;
        int rc = ona__registry_insert(&r, &obj, "victim", &h);
        if (rc != 0 || slot_of(h) != 0 || h >= HANDLE_LIMIT ||
            ona__registry_resolve(&r, h) != &obj || ona__registry_resolve(&r, first) != NULL ||
            ona__registry_resolve(&r, handles[n - 1]) != NULL)
            ck_abort_msg("reuse %d: rc %d, handle %llu, first %llu", n, rc, (unsigned long long)h,
                         (unsigned long long)first);
        handles[n] = h;
        ona__registry_remove(&r, h);
    }
    ck_assert_ptr_null(ona__registry_resolve(&r, first));
    qsort(handles, REUSES + 1, sizeof *handles, cmp_u64);
    for (int n = 1; n <= REUSES; n++)
        ck_assert_uint_ne(handles[n], handles[n - 1]);
    free(handles);
    ona__registry_free(&r);
}
END_TEST

START_TEST(test_registry_retires_a_worn_out_slot) {
    const uint64_t max = ONA__REGISTRY_MAX_GENERATION;
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 2), 0);
    int x, y, z, w;
    ona__registry_set_generation(&r, 0, max - 1);
    uint64_t hx = insert(&r, &x, "x"); /* the queue starts with slot 0 */
    ck_assert_uint_eq(hx, ((max - 1) << ONA__REGISTRY_SLOT_BITS) | 1);
    ona__registry_remove(&r, hx);
    uint64_t hy = insert(&r, &y, "y"); /* FIFO: slot 1, which was free before slot 0 was */
    ck_assert_uint_eq(slot_of(hy), 1);
    uint64_t hz = insert(&r, &z, "z"); /* slot 0 again, at the last generation */
    ck_assert_uint_eq(hz, (max << ONA__REGISTRY_SLOT_BITS) | 1);
    ck_assert_uint_lt(hz, HANDLE_LIMIT);
    ck_assert_ptr_eq(ona__registry_resolve(&r, hz), &z);
    ona__registry_remove(&r, hz); /* slot 0 is worn out: retired */
    ona__registry_remove(&r, hy);
    ck_assert_uint_eq(ona__registry_count(&r), 0);

    /* Only slot 1 is used from now on; the registry holds one object at most. */
    uint64_t prev = hy;
    for (int n = 0; n < 1000; n++) {
        uint64_t h = insert(&r, &w, "w");
        ck_assert_uint_eq(slot_of(h), 1);
        uint64_t refused = 99;
        ck_assert_int_eq(ona__registry_insert(&r, &x, "x", &refused), ONA_ELIMIT);
        ck_assert_ptr_null(ona__registry_resolve(&r, hx));
        ck_assert_ptr_null(ona__registry_resolve(&r, hz));
        ck_assert_ptr_null(ona__registry_resolve(&r, prev));
        ona__registry_remove(&r, h);
        prev = h;
    }
    /* The retired slot is never reused, so its tombstone stays. */
    char buf[ONA__REGISTRY_NAME_SIZE];
    ck_assert_pstr_eq(ona__registry_dead_name(&r, hz, buf, sizeof buf), "z");
    ck_assert_ptr_null(ona__registry_dead_name(&r, hx, buf, sizeof buf));
    ona__registry_free(&r);
}
END_TEST

START_TEST(test_registry_reuses_slots_fifo) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 4), 0);
    int objs[4];
    uint64_t h[4];
    for (int i = 0; i < 4; i++) {
        h[i] = insert(&r, &objs[i], NULL);
        ck_assert_uint_eq(slot_of(h[i]), (uint32_t)i);
    }
    ona__registry_remove(&r, h[2]);
    ona__registry_remove(&r, h[0]);
    ona__registry_remove(&r, h[3]);
    /* First freed, first reused (a stack would hand out slot 3 first). */
    ck_assert_uint_eq(slot_of(insert(&r, &objs[0], NULL)), 2);
    ck_assert_uint_eq(slot_of(insert(&r, &objs[1], NULL)), 0);
    ck_assert_uint_eq(slot_of(insert(&r, &objs[2], NULL)), 3);
    ona__registry_free(&r);
}
END_TEST

typedef struct thing {
    int id;
    bool wanted;
} thing;

static bool accept_wanted(void *obj, void *ud) {
    int *calls = ud;
    (*calls)++;
    return ((thing *)obj)->wanted;
}

START_TEST(test_registry_lookup_by_name) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 16), 0);
    thing a = {1, true}, b = {2, true}, c = {3, true}, d = {4, true}, anon = {5, true};
    char name[16] = "ball";
    uint64_t ha = insert(&r, &a, name);
    strcpy(name, "xxxx"); /* the registry copied the name */
    uint64_t hb = insert(&r, &b, "ball");
    uint64_t hc = insert(&r, &c, "paddle");
    insert(&r, &anon, NULL);
    insert(&r, &anon, "");

    /* Duplicates: the earliest inserted wins. */
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), ha);
    ck_assert_uint_eq(ona__registry_lookup(&r, "paddle", NULL, NULL), hc);
    ck_assert_uint_eq(ona__registry_lookup(&r, "xxxx", NULL, NULL), 0);
    ck_assert_uint_eq(ona__registry_lookup(&r, "bal", NULL, NULL), 0);
    ck_assert_uint_eq(ona__registry_lookup(&r, "balls", NULL, NULL), 0);

    /* accept skips objects it rejects, and sees each candidate's object. */
    int calls = 0;
    a.wanted = false;
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", accept_wanted, &calls), hb);
    ck_assert_int_eq(calls, 2);
    b.wanted = false;
    calls = 0;
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", accept_wanted, &calls), 0);
    ck_assert_int_eq(calls, 2);
    a.wanted = b.wanted = true;

    /* After removal: the next oldest, and a later duplicate comes after it. */
    ona__registry_remove(&r, ha);
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), hb);
    uint64_t hd = insert(&r, &d, "ball");
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), hb);
    ona__registry_remove(&r, hb);
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), hd);
    ona__registry_remove(&r, hd);
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), 0);
    ck_assert_uint_eq(ona__registry_lookup(&r, "paddle", NULL, NULL), hc);

    /* Names are kept to 63 bytes, on insert and on lookup alike. */
    char long_name[100], prefix[ONA__REGISTRY_NAME_SIZE];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    memcpy(prefix, long_name, sizeof prefix - 1);
    prefix[sizeof prefix - 1] = '\0';
    uint64_t hl = insert(&r, &d, long_name);
    ck_assert_uint_eq(ona__registry_lookup(&r, long_name, NULL, NULL), hl);
    ck_assert_uint_eq(ona__registry_lookup(&r, prefix, NULL, NULL), hl);
    prefix[sizeof prefix - 2] = '\0';
    ck_assert_uint_eq(ona__registry_lookup(&r, prefix, NULL, NULL), 0);
    ona__registry_remove(&r, hl);
    char buf[128];
    ck_assert_uint_eq(strlen(ona__registry_dead_name(&r, hl, buf, sizeof buf)),
                      ONA__REGISTRY_NAME_SIZE - 1);
    ona__registry_free(&r);
}
END_TEST

START_TEST(test_registry_tombstone_names) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, 4), 0);
    int objs[6];
    uint64_t ha = insert(&r, &objs[0], "ball");
    uint64_t hb = insert(&r, &objs[1], "paddle");
    uint64_t hc = insert(&r, &objs[2], NULL);
    uint64_t hd = insert(&r, &objs[3], "brick");
    char buf[ONA__REGISTRY_NAME_SIZE];
    ck_assert_ptr_null(ona__registry_dead_name(&r, ha, buf, sizeof buf)); /* still live */

    ona__registry_remove(&r, ha);
    ona__registry_remove(&r, hb);
    ona__registry_remove(&r, hc);
    ck_assert_pstr_eq(ona__registry_dead_name(&r, ha, buf, sizeof buf), "ball");
    ck_assert_ptr_eq(ona__registry_dead_name(&r, ha, buf, sizeof buf), buf);
    ck_assert_pstr_eq(ona__registry_dead_name(&r, hb, buf, sizeof buf), "paddle");
    ck_assert_pstr_eq(ona__registry_dead_name(&r, hc, buf, sizeof buf), "");
    ck_assert_ptr_null(ona__registry_dead_name(&r, hd, buf, sizeof buf));
    /* A different generation of the same slot is not the dead handle. */
    ck_assert_ptr_null(ona__registry_dead_name(&r, ha + (UINT64_C(1) << ONA__REGISTRY_SLOT_BITS),
                                               buf, sizeof buf));
    /* Truncated to the buffer; nothing for an empty buffer. */
    char small[3];
    ck_assert_pstr_eq(ona__registry_dead_name(&r, hb, small, sizeof small), "pa");
    ck_assert_ptr_null(ona__registry_dead_name(&r, hb, small, 0));
    /* A tombstone is not found by name. */
    ck_assert_uint_eq(ona__registry_lookup(&r, "ball", NULL, NULL), 0);

    /* Reusing a slot ends its tombstone; the others stay (FIFO: ball's slot goes first). */
    uint64_t he = insert(&r, &objs[4], "ball");
    ck_assert_uint_eq(slot_of(he), slot_of(ha));
    ck_assert_ptr_null(ona__registry_dead_name(&r, ha, buf, sizeof buf));
    ck_assert_pstr_eq(ona__registry_dead_name(&r, hb, buf, sizeof buf), "paddle");
    uint64_t hf = insert(&r, &objs[5], NULL);
    ck_assert_uint_eq(slot_of(hf), slot_of(hb));
    ck_assert_ptr_null(ona__registry_dead_name(&r, hb, buf, sizeof buf));
    ona__registry_remove(&r, he);
    ck_assert_pstr_eq(ona__registry_dead_name(&r, he, buf, sizeof buf), "ball");
    ck_assert_ptr_null(ona__registry_dead_name(&r, ha, buf, sizeof buf));
    ona__registry_free(&r);
}
END_TEST

/* Functional only (no timing): many names in one registry, each found exactly. */
START_TEST(test_registry_lookup_many_names) {
    enum { N = 100000 };
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, N), 0);
    static int objs[N];
    uint64_t *handles = malloc(sizeof *handles * N);
    ck_assert_ptr_nonnull(handles);
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        handles[i] = insert(&r, &objs[i], name);
    }
    ck_assert_uint_eq(ona__registry_count(&r), N);
    uint64_t refused;
    ck_assert_int_eq(ona__registry_insert(&r, &objs[0], "t0", &refused), ONA_ELIMIT);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        uint64_t h = ona__registry_lookup(&r, name, NULL, NULL);
        if (h != handles[i] || ona__registry_resolve(&r, h) != &objs[i])
            ck_abort_msg("lookup of %s gave %llu, expected %llu", name, (unsigned long long)h,
                         (unsigned long long)handles[i]);
    }
    for (int i = 0; i < N; i += 2)
        ona__registry_remove(&r, handles[i]);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        uint64_t expected = i % 2 ? handles[i] : 0;
        uint64_t h = ona__registry_lookup(&r, name, NULL, NULL);
        if (h != expected)
            ck_abort_msg("after removals, lookup of %s gave %llu, expected %llu", name,
                         (unsigned long long)h, (unsigned long long)expected);
    }
    free(handles);
    ona__registry_free(&r);
}
END_TEST

/* --- Threads --------------------------------------------------------------------------------- */

enum { OBJECTS = 2048, PUBLISHED = 64, ROUNDS = 200000 };

/* Main inserts and removes; published[] holds (object index << 53) | handle of recent inserts,
 * some already removed. The resolver checks that a published handle resolves to its own object
 * or to NULL, never to another, and that a name lookup gives a handle of an object of that
 * name. Objects are immutable while the threads run. */
typedef struct race {
    ona__registry reg;
    thing objs[OBJECTS];
    _Atomic uint64_t published[PUBLISHED];
    atomic_bool started;
    atomic_bool stop;
    atomic_long wrong;
} race;

static void *resolver(void *arg) {
    race *t = arg;
    /* relaxed: only a handshake so the loop below overlaps the main thread's. */
    atomic_store_explicit(&t->started, true, memory_order_relaxed);
    unsigned i = 0;
    /* relaxed: a stop flag; nothing is published through it. */
    while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
        /* relaxed: the registry itself orders the object; the value is just a handle. */
        uint64_t v = atomic_load_explicit(&t->published[i++ % PUBLISHED], memory_order_relaxed);
        if (!v)
            continue;
        uint64_t h = v & (HANDLE_LIMIT - 1);
        thing *expected = &t->objs[v >> 53];
        thing *got = ona__registry_resolve(&t->reg, h);
        /* relaxed: counters read after join. */
        if (got && (got != expected || got->id != (int)(v >> 53)))
            atomic_fetch_add_explicit(&t->wrong, 1, memory_order_relaxed);
        /* Object k is named "even" or "odd" after k's parity. */
        uint64_t found = ona__registry_lookup(&t->reg, (v >> 53) % 2 ? "odd" : "even", NULL, NULL);
        thing *named = found ? ona__registry_resolve(&t->reg, found) : NULL;
        if (named && named->id % 2 != (int)((v >> 53) % 2))
            atomic_fetch_add_explicit(&t->wrong, 1, memory_order_relaxed);
        (void)ona__registry_count(&t->reg);
    }
    return NULL;
}

START_TEST(test_registry_resolve_while_inserting_and_removing) {
    race *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(ona__registry_init(&t->reg, 32), 0);
    for (int k = 0; k < OBJECTS; k++)
        t->objs[k] = (thing){.id = k};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, resolver, t), 0);
    /* relaxed: see resolver. */
    while (!atomic_load_explicit(&t->started, memory_order_relaxed))
        sched_yield();
    uint64_t live[16] = {0};
    for (int n = 0; n < ROUNDS; n++) {
        int k = n % OBJECTS;
        int j = n % 16;
        if (live[j]) {
            ona__registry_remove(&t->reg, live[j]);
            if (ona__registry_resolve(&t->reg, live[j]))
                ck_abort_msg("round %d: a removed handle resolves", n);
        }
        uint64_t h = 0;
        ck_assert_int_eq(ona__registry_insert(&t->reg, &t->objs[k], k % 2 ? "odd" : "even", &h), 0);
        live[j] = h;
        /* relaxed: the handle is a plain value; the registry publishes the object. */
        atomic_store_explicit(&t->published[n % PUBLISHED], ((uint64_t)k << 53) | h,
                              memory_order_relaxed);
    }
    atomic_store_explicit(&t->stop, true, memory_order_relaxed);
    pthread_join(thread, NULL);
    ck_assert_int_eq(atomic_load_explicit(&t->wrong, memory_order_relaxed), 0);
    ck_assert_uint_eq(ona__registry_count(&t->reg), 16);
    ona__registry_free(&t->reg);
    free(t);
}
END_TEST

enum { INSERTERS = 4, PER_INSERTER = 2000 };

typedef struct inserter {
    ona__registry *reg;
    int objs[PER_INSERTER];
    uint64_t handles[PER_INSERTER];
    int failures;
} inserter;

static void *insert_many(void *arg) {
    inserter *in = arg;
    for (int i = 0; i < PER_INSERTER; i++)
        if (ona__registry_insert(in->reg, &in->objs[i], "worker", &in->handles[i]) != 0)
            in->failures++;
    return NULL;
}

START_TEST(test_registry_inserts_from_many_threads) {
    ona__registry r;
    ck_assert_int_eq(ona__registry_init(&r, INSERTERS * PER_INSERTER), 0);
    static inserter ins[INSERTERS];
    pthread_t threads[INSERTERS];
    for (int i = 0; i < INSERTERS; i++) {
        ins[i] = (inserter){.reg = &r};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, insert_many, &ins[i]), 0);
    }
    for (int i = 0; i < INSERTERS; i++)
        pthread_join(threads[i], NULL);
    static uint64_t all[INSERTERS * PER_INSERTER];
    for (int i = 0; i < INSERTERS; i++) {
        ck_assert_int_eq(ins[i].failures, 0);
        for (int j = 0; j < PER_INSERTER; j++) {
            ck_assert_ptr_eq(ona__registry_resolve(&r, ins[i].handles[j]), &ins[i].objs[j]);
            all[i * PER_INSERTER + j] = ins[i].handles[j];
        }
    }
    ck_assert_uint_eq(ona__registry_count(&r), INSERTERS * PER_INSERTER);
    qsort(all, INSERTERS * PER_INSERTER, sizeof all[0], cmp_u64);
    for (int i = 1; i < INSERTERS * PER_INSERTER; i++)
        ck_assert_uint_ne(all[i], all[i - 1]);
    ona__registry_free(&r);
}
END_TEST

/* --- Memory ---------------------------------------------------------------------------------- */

START_TEST(test_registry_allocates_only_at_init) {
    ona__registry r;
    /* Each of init's allocations can fail; the registry is then left empty. */
    for (long n = 1; n <= 3; n++) {
        fault_alloc_begin(n, false);
        ck_assert_int_eq(ona__registry_init(&r, 64), ONA_ENOMEM);
        ck_assert_ptr_null(r.slots);
        ona__registry_free(&r);
    }
    fault_alloc_begin(0, false);
    ck_assert_int_eq(ona__registry_init(&r, 64), 0);
    long at_init = fault_alloc_count();
    ck_assert_int_gt(at_init, 0);
    int obj;
    char long_name[200];
    memset(long_name, 'q', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    uint64_t h[64];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 64; i++)
            h[i] = insert(&r, &obj, i % 2 ? long_name : "short");
        ck_assert_uint_ne(ona__registry_lookup(&r, long_name, NULL, NULL), 0);
        for (int i = 0; i < 64; i++)
            ona__registry_remove(&r, h[i]);
    }
    /* Inserts, lookups and removes allocated nothing. */
    ck_assert_int_eq(fault_alloc_count(), at_init);
    fault_alloc_end();
    ona__registry_free(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("registry");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_registry_insert_resolve_remove);
    tcase_add_test(tc, test_registry_rejects_bad_arguments);
    tcase_add_test(tc, test_registry_full_refuses_until_a_remove);
    tcase_add_test(tc, test_registry_million_cycles_reuse_slots);
    tcase_add_test(tc, test_registry_reused_slot_never_revives_a_handle);
    tcase_add_test(tc, test_registry_retires_a_worn_out_slot);
    tcase_add_test(tc, test_registry_reuses_slots_fifo);
    tcase_add_test(tc, test_registry_lookup_by_name);
    tcase_add_test(tc, test_registry_tombstone_names);
    tcase_add_test(tc, test_registry_lookup_many_names);
    tcase_add_test(tc, test_registry_resolve_while_inserting_and_removing);
    tcase_add_test(tc, test_registry_inserts_from_many_threads);
    tcase_add_test(tc, test_registry_allocates_only_at_init);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
