/*
 * test_deque.c: the Chase-Lev work-stealing deque: LIFO for the owner and FIFO for thieves, the
 * empty deque, indices wrapping around the array many times, a stress run in which an owner and
 * thieves take a million distinct items between them (each exactly once, none lost), and the
 * race for the last item. Run it under the tsan preset too.
 *
 * Threads other than the test's own only record what they saw; every assertion runs on the
 * test's thread after they are joined. Waits between threads yield and have no time limit: they
 * wait for an event that is certain to come, never for an amount of time.
 */
#include "test_support.h"

#include "deque.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/* Values to push: distinct, non-NULL pointers whose index is easy to recover. */
static int cells[64];
#define ITEM(i) ((void *)&cells[(i)])
#define INDEX(p) ((int)((int *)(p)-cells))

START_TEST(test_deque_owner_lifo_thief_fifo) {
    ona__deque d;
    ck_assert_int_eq(ona__deque_init(&d, 8), 0);
    for (int i = 0; i < 8; i++)
        ona__deque_push(&d, ITEM(i));
    ck_assert_int_eq(ona__deque_size(&d), 8);
    /* The owner takes from the newest end, a thief from the oldest, and they meet in the middle. */
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(7));
    ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(0));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(6));
    ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(1));
    ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(2));
    ck_assert_int_eq(ona__deque_size(&d), 3);
    /* A push after pops goes on the owner's end again. */
    ona__deque_push(&d, ITEM(20));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(20));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(5));
    ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(3));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(4));
    ck_assert_int_eq(ona__deque_size(&d), 0);
    ona__deque_free(&d);
}
END_TEST

START_TEST(test_deque_empty_gives_null) {
    ona__deque d;
    ck_assert_int_eq(ona__deque_init(&d, 4), 0);
    ck_assert_ptr_null(ona__deque_pop(&d));
    ck_assert_ptr_null(ona__deque_steal(&d));
    ck_assert_int_eq(ona__deque_size(&d), 0);
    /* Emptied by the owner, then by a thief: both ends report empty, and a failed pop leaves the
     * deque usable. */
    ona__deque_push(&d, ITEM(1));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(1));
    ck_assert_ptr_null(ona__deque_pop(&d));
    ck_assert_ptr_null(ona__deque_steal(&d));
    ona__deque_push(&d, ITEM(2));
    ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(2));
    ck_assert_ptr_null(ona__deque_steal(&d));
    ck_assert_ptr_null(ona__deque_pop(&d));
    ck_assert_int_eq(ona__deque_size(&d), 0);
    ona__deque_push(&d, ITEM(3));
    ck_assert_int_eq(ona__deque_size(&d), 1);
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(3));
    ona__deque_free(&d);
    ona__deque_free(&d); /* freeing twice is safe */
}
END_TEST

START_TEST(test_deque_capacity_rounds_up) {
    /* A capacity of 5 holds 8, and 0 holds 2 (deque.h); every item comes back out in order. */
    ona__deque d;
    ck_assert_int_eq(ona__deque_init(&d, 5), 0);
    for (int i = 0; i < 8; i++)
        ona__deque_push(&d, ITEM(i));
    for (int i = 0; i < 8; i++)
        ck_assert_ptr_eq(ona__deque_steal(&d), ITEM(i));
    ona__deque_free(&d);
    ck_assert_int_eq(ona__deque_init(&d, 0), 0);
    ona__deque_push(&d, ITEM(0));
    ona__deque_push(&d, ITEM(1));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(1));
    ck_assert_ptr_eq(ona__deque_pop(&d), ITEM(0));
    ona__deque_free(&d);
}
END_TEST

START_TEST(test_deque_indices_wrap_around) {
    /* Capacity 4, filled and emptied from both ends 50,000 times: top and bottom pass the array
     * length tens of thousands of times, and every item comes out where its end says it must.
     * Mismatches are counted and asserted once, so the loop stays cheap under sanitizers. */
    ona__deque d;
    ck_assert_int_eq(ona__deque_init(&d, 4), 0);
    int next = 0, wrong = 0, first_wrong_round = -1;
    for (int round = 0; round < 50000; round++) {
        int first = next;
        int fill = 1 + round % 4; /* 1..4 items, so the start index moves by odd steps too */
        for (int i = 0; i < fill; i++)
            ona__deque_push(&d, ITEM((next++) % 64));
        int bad = ona__deque_size(&d) != fill;
        /* A thief takes the oldest, the owner the newest, alternating until it is empty. */
        int lo = first, hi = next - 1;
        for (int i = 0; i < fill; i++) {
            if (i % 2 == 0)
                bad += ona__deque_steal(&d) != ITEM((lo++) % 64);
            else
                bad += ona__deque_pop(&d) != ITEM((hi--) % 64);
        }
        bad += ona__deque_pop(&d) != NULL;
        bad += ona__deque_steal(&d) != NULL;
        if (bad && first_wrong_round < 0)
            first_wrong_round = round;
        wrong += bad;
    }
    ck_assert_msg(wrong == 0, "%d wrong results, the first in round %d", wrong, first_wrong_round);
    ck_assert_int_eq(ona__deque_size(&d), 0);
    ona__deque_free(&d);
}
END_TEST

/* --- Stress: one owner, three thieves, a million items ------------------------------------- */

enum {
    STRESS_ITEMS = 1000000,
    STRESS_THIEVES = 3,
    STRESS_CAPACITY = 256,  /* small, so the indices wrap thousands of times */
    STRESS_CHECKPOINTS = 64 /* times the owner waits for a thief to take something */
};

typedef struct stress {
    ona__deque deque;
    atomic_uchar *taken; /* taken[i]: how many times item i came out */
    atomic_bool done;    /* the owner has pushed everything and emptied its deque */
    atomic_llong stolen; /* items thieves took, so far */
    long long thief_took[STRESS_THIEVES];
    long long owner_took;
    atomic_llong dangling; /* items out of range or NULL (must stay 0) */
} stress;

typedef struct thief_arg {
    stress *st;
    int index;
} thief_arg;

static void take(stress *st, void *got) {
    uintptr_t i = (uintptr_t)got - 1;
    if (!got || i >= STRESS_ITEMS) {
        /* relaxed: counting only, read after the join. */
        atomic_fetch_add_explicit(&st->dangling, 1, memory_order_relaxed);
        return;
    }
    /* relaxed: counting only; the join orders the counts before the test reads them. */
    atomic_fetch_add_explicit(&st->taken[i], 1, memory_order_relaxed);
}

static void *stress_thief(void *arg) {
    thief_arg *ta = arg;
    stress *st = ta->st;
    long long took = 0;
    for (;;) {
        void *got = ona__deque_steal(&st->deque);
        if (got) {
            take(st, got);
            took++;
            /* relaxed: the owner only waits for the count to move. */
            atomic_fetch_add_explicit(&st->stolen, 1, memory_order_relaxed);
            continue;
        }
        /* acquire: once done, the deque is empty for good (the owner emptied it and stopped). */
        if (atomic_load_explicit(&st->done, memory_order_acquire))
            break;
        sched_yield();
    }
    st->thief_took[ta->index] = took;
    return NULL;
}

/* The owner's side: pushes every item in bursts of varying size and pops some back between
 * bursts. It never knows how many items thieves took, so it keeps `bound`, which counts its own
 * pushes less its own pops since it last saw the deque empty: never less than what the deque
 * holds, so keeping bound <= capacity keeps the deque from overflowing. */
static void stress_owner(stress *st) {
    uint32_t rng = 12345;
    long long bound = 0;
    int pushed = 0;
    while (pushed < STRESS_ITEMS) {
        rng = rng * 1664525u + 1013904223u;
        int burst = 1 + (int)((rng >> 16) % 64), n = 0;
        for (; n < burst && pushed < STRESS_ITEMS && bound < STRESS_CAPACITY; n++) {
            ona__deque_push(&st->deque, (void *)(uintptr_t)(++pushed));
            bound++;
        }
        /* Each time `pushed` passes a checkpoint, wait until a thief has taken something, so the
         * run certainly interleaves owner and thieves however the threads are scheduled. The
         * burst just pushed is still there (the owner has not popped since), so a steal comes. */
        const int every = STRESS_ITEMS / STRESS_CHECKPOINTS;
        if (n > 0 && (pushed - n) / every != pushed / every) {
            long long before = atomic_load_explicit(&st->stolen, memory_order_relaxed);
            while (atomic_load_explicit(&st->stolen, memory_order_relaxed) == before)
                sched_yield();
        }
        int pops = (int)((rng >> 8) % 48);
        for (int i = 0; i < pops; i++) {
            void *got = ona__deque_pop(&st->deque);
            if (!got) {
                bound = 0; /* empty: whatever was left, thieves took */
                break;
            }
            take(st, got);
            st->owner_took++;
            bound--;
        }
    }
    void *got;
    while ((got = ona__deque_pop(&st->deque)) != NULL) {
        take(st, got);
        st->owner_took++;
    }
    /* release: pairs with the thieves' acquire load of done. */
    atomic_store_explicit(&st->done, true, memory_order_release);
}

START_TEST(test_deque_stress_every_item_taken_once) {
    static stress st;
    memset(&st, 0, sizeof st);
    ck_assert_int_eq(ona__deque_init(&st.deque, STRESS_CAPACITY), 0);
    st.taken = calloc(STRESS_ITEMS, sizeof *st.taken);
    ck_assert_ptr_nonnull(st.taken);
    atomic_init(&st.done, false);
    atomic_init(&st.stolen, 0);
    atomic_init(&st.dangling, 0);
    pthread_t threads[STRESS_THIEVES];
    thief_arg args[STRESS_THIEVES];
    for (int t = 0; t < STRESS_THIEVES; t++) {
        args[t] = (thief_arg){&st, t};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, stress_thief, &args[t]), 0);
    }
    stress_owner(&st);
    long long total = st.owner_took, stolen = 0;
    for (int t = 0; t < STRESS_THIEVES; t++) {
        pthread_join(threads[t], NULL);
        stolen += st.thief_took[t];
    }
    total += stolen;
    ck_assert_int_eq(atomic_load(&st.dangling), 0);
    long long missing = 0, duplicated = 0;
    for (int i = 0; i < STRESS_ITEMS; i++) {
        unsigned n = atomic_load_explicit(&st.taken[i], memory_order_relaxed);
        missing += n == 0;
        duplicated += n > 1;
    }
    ck_assert_msg(missing == 0 && duplicated == 0, "%lld items lost, %lld taken twice", missing,
                  duplicated);
    ck_assert_int_eq(total, STRESS_ITEMS);
    ck_assert_int_ge(stolen, STRESS_CHECKPOINTS);
    ck_assert_int_eq(ona__deque_size(&st.deque), 0);
    free(st.taken);
    ona__deque_free(&st.deque);
}
END_TEST

/* --- The race for the last item ------------------------------------------------------------ */

/* Every round is a three-way hand-off between threads, which ThreadSanitizer makes slow: fewer
 * rounds under sanitizers keep the suite to a few seconds there. */
#ifdef ONA_SANITIZER_BUILD
enum { RACE_ROUNDS = 5000 };
#else
enum { RACE_ROUNDS = 20000 };
#endif
enum { RACE_THIEVES = 2, SKEW_STEPS = 1024 };

typedef struct race {
    ona__deque deque;
    atomic_int arrived;           /* racers at the start line, counted over all rounds */
    atomic_int finished;          /* thieves done, counted over all rounds */
    int thief_wins[RACE_THIEVES]; /* rounds each thief won */
    int wrong_item[RACE_THIEVES]; /* rounds a thief got something other than that round's item */
} race;

typedef struct racer_arg {
    race *r;
    int index;
} racer_arg;

/* The start line of round `round`: every racer (the owner and each thief) arrives, then all wait
 * until the last one has, so they leave within moments of each other and which of them wins
 * changes from round to round. The wait spins before it yields, since a racer that yields gives
 * the others all the time they need to win alone. */
static void race_start(race *r, int round) {
    /* acq_rel: the owner's arrival publishes its push; every racer's departure sees it. */
    atomic_fetch_add_explicit(&r->arrived, 1, memory_order_acq_rel);
    for (int spins = 0;
         atomic_load_explicit(&r->arrived, memory_order_acquire) < round * (RACE_THIEVES + 1);
         spins++)
        if (spins >= 4096)
            sched_yield();
}

static void *race_thief(void *arg) {
    racer_arg *ra = arg;
    race *r = ra->r;
    for (int round = 1; round <= RACE_ROUNDS; round++) {
        race_start(r, round);
        void *got = ona__deque_steal(&r->deque);
        if (got) {
            if (got != (void *)(uintptr_t)round)
                r->wrong_item[ra->index]++;
            r->thief_wins[ra->index]++;
        }
        /* release: the owner reads this round's result only after every thief reported. */
        atomic_fetch_add_explicit(&r->finished, 1, memory_order_release);
    }
    return NULL;
}

START_TEST(test_deque_last_item_has_one_winner) {
    /* Each round the owner pushes one item and then pops it while two thieves steal: the three
     * race for the deque's only item, and exactly one of them gets it. */
    static race r;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(ona__deque_init(&r.deque, 2), 0);
    atomic_init(&r.arrived, 0);
    atomic_init(&r.finished, 0);
    pthread_t threads[RACE_THIEVES];
    racer_arg args[RACE_THIEVES];
    for (int t = 0; t < RACE_THIEVES; t++) {
        args[t] = (racer_arg){&r, t};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, race_thief, &args[t]), 0);
    }
    int owner_wins = 0, wrong_owner_item = 0, rounds_without_one_winner = 0, not_empty = 0;
    int thief_wins_before = 0;
    for (int round = 1; round <= RACE_ROUNDS; round++) {
        ona__deque_push(&r.deque, (void *)(uintptr_t)round);
        race_start(&r, round);
        /* The owner's pop is shorter than a steal, so it would win nearly every round if it left
         * at once; a head start for the thieves that differs from round to round sweeps the
         * window in which both can still win. */
        for (int i = (round * 37) % SKEW_STEPS; i > 0; i--)
            (void)atomic_load_explicit(&r.finished, memory_order_relaxed);
        void *got = ona__deque_pop(&r.deque);
        /* acquire: pairs with each thief's release increment, so its wins are visible below. */
        while (atomic_load_explicit(&r.finished, memory_order_acquire) < round * RACE_THIEVES)
            sched_yield();
        int thief_wins = 0;
        for (int t = 0; t < RACE_THIEVES; t++)
            thief_wins += r.thief_wins[t];
        int winners = (got != NULL) + (thief_wins - thief_wins_before);
        thief_wins_before = thief_wins;
        if (got) {
            owner_wins++;
            wrong_owner_item += got != (void *)(uintptr_t)round;
        }
        rounds_without_one_winner += winners != 1;
        not_empty += ona__deque_size(&r.deque) != 0;
    }
    for (int t = 0; t < RACE_THIEVES; t++)
        pthread_join(threads[t], NULL);
    ck_assert_int_eq(rounds_without_one_winner, 0);
    ck_assert_int_eq(not_empty, 0);
    ck_assert_int_eq(wrong_owner_item, 0);
    for (int t = 0; t < RACE_THIEVES; t++)
        ck_assert_int_eq(r.wrong_item[t], 0);
    ck_assert_int_eq(owner_wins + thief_wins_before, RACE_ROUNDS);
    ona__deque_free(&r.deque);
}
END_TEST

int main(void) {
    Suite *s = suite_create("deque");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_deque_owner_lifo_thief_fifo);
    tcase_add_test(tc, test_deque_empty_gives_null);
    tcase_add_test(tc, test_deque_capacity_rounds_up);
    tcase_add_test(tc, test_deque_indices_wrap_around);
    suite_add_tcase(s, tc);
    TCase *threads = tcase_create("threads");
    tcase_add_test(threads, test_deque_stress_every_item_taken_once);
    tcase_add_test(threads, test_deque_last_item_has_one_winner);
    suite_add_tcase(s, threads);
    return run_suite(s);
}
