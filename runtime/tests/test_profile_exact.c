/* A synthetic event stream with an injected clock: the profile numbers must
 * be exact. The program checks the call-path tree itself, then finalises so
 * that tests/runtime/test_profile.py can check profile.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "profile.h"
#include "timer.h"

static uint64_t now_ticks;
static uint64_t injected(void) { return now_ticks; }

static int failures;
#define EXPECT_EQ(what, got, want)                                                            \
    do {                                                                                      \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want);   \
        if (g_ != w_) {                                                                       \
            printf("FAIL %s: got %llu, want %llu\n", what, g_, w_);                           \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

static void at(uint64_t t) { now_ticks = t; }

static scorep_profile_node* find(scorep_profile_node* parent, scorep_region region, uint32_t parameter)
{
    for (scorep_profile_node* c = parent->first_child; c; c = c->next_sibling)
        if (c->region == region && c->parameter == parameter) return c;
    return NULL;
}

static uint64_t exclusive(scorep_profile_node* n)
{
    uint64_t t = n->n.time_incl;
    for (scorep_profile_node* c = n->first_child; c; c = c->next_sibling) t -= c->n.time_incl;
    return t;
}

int main(void)
{
    scorep_timer_inject(injected, 1000000000ull); /* 1 tick = 1 ns */
    scorep_region main_r = scorep_region_define("main", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region foo = scorep_region_define("foo", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region bar = scorep_region_define("bar", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region baz = scorep_region_define("baz", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region qux = scorep_region_define("qux", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region send = scorep_region_define("MPI_Send", NULL, SCOREP_PARADIGM_MPI, SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_parameter n = scorep_parameter_define("n", SCOREP_PARAMETER_INT64);
    scorep_metric flops = scorep_metric_define("flops", "ops");

    /* the source line is part of a region's identity (adapter.h); never entered */
#define LINED(line) scorep_region_define_at("lined", "main.c", line, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL)
    scorep_region lined10 = LINED(10);
    EXPECT_EQ("same line: same region", LINED(10), lined10);
    EXPECT_EQ("other line: other region", LINED(11) != lined10, 1);
    EXPECT_EQ("scorep_region_define is line 0",
              scorep_region_define("lined", "main.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL), LINED(0));
    EXPECT_EQ("negative line: unknown", LINED(-3), LINED(0));
    EXPECT_EQ("line 0 is another region than line 10", LINED(0) != lined10, 1);
    EXPECT_EQ("stored line", scorep_region_get(lined10)->line, 10);
    EXPECT_EQ("stored line of define", scorep_region_get(main_r)->line, 0);
#undef LINED

    at(0);   scorep_enter(main_r);
    at(10);  scorep_enter(foo);
    at(15);  scorep_enter(bar);
    at(25);  scorep_exit(bar);
    at(40);  scorep_exit(foo);          /* foo visit 1: 30 */
    at(50);  scorep_enter(foo);
    at(52);  scorep_enter(send);
    at(55);  scorep_mpi_send(SCOREP_COMM_WORLD, 0, 5, 100);
    at(58);  scorep_exit(send);
    at(60);  scorep_metric_add(flops, 7);
    at(70);  scorep_exit(foo);          /* foo visit 2: 20 */
    at(80);  scorep_enter(baz);
    at(81);  scorep_parameter_int(n, 3);
    at(82);  scorep_enter(qux);
    at(90);  scorep_exit(qux);
    at(100); scorep_exit(baz);          /* param node n=3 closes at 100: 19 */
    at(110); scorep_enter(baz);
    at(111); scorep_parameter_int(n, 4);
    at(115); scorep_exit(baz);
    at(200); scorep_exit(main_r);

    scorep_profile_node* root = scorep_profile_root(scorep_location_current());
    /* the program region, entered as the measurement started (at 0), is
     * the only root; main is below it */
    EXPECT_EQ("one root", root->first_child != NULL && root->first_child->next_sibling == NULL, 1);
    scorep_profile_node* program = find(root, scorep_program_region, SCOREP_INVALID_ID);
    scorep_profile_node* m = program ? find(program, main_r, SCOREP_INVALID_ID) : NULL;
    if (!program || !m) {
        printf("FAIL no program node with main below it\n");
        return 1;
    }
    EXPECT_EQ("program still open", program->n.visits, 0);
    scorep_profile_node* f = find(m, foo, SCOREP_INVALID_ID);
    scorep_profile_node* b = f ? find(f, bar, SCOREP_INVALID_ID) : NULL;
    scorep_profile_node* s = f ? find(f, send, SCOREP_INVALID_ID) : NULL;
    scorep_profile_node* z = find(m, baz, SCOREP_INVALID_ID);
    scorep_profile_node* p3 = NULL;
    scorep_profile_node* p4 = NULL;
    if (z)
        for (scorep_profile_node* c = z->first_child; c; c = c->next_sibling) {
            if (c->parameter == n && c->parameter_value == 3) p3 = c;
            if (c->parameter == n && c->parameter_value == 4) p4 = c;
        }
    scorep_profile_node* q = p3 ? find(p3, qux, SCOREP_INVALID_ID) : NULL;
    if (!f || !b || !s || !z || !p3 || !p4 || !q) {
        printf("FAIL missing call path\n");
        return 1;
    }
    EXPECT_EQ("main visits", m->n.visits, 1);
    EXPECT_EQ("main incl", m->n.time_incl, 200);
    EXPECT_EQ("main excl", exclusive(m), 200 - 50 - 25);
    EXPECT_EQ("foo visits", f->n.visits, 2);
    EXPECT_EQ("foo incl", f->n.time_incl, 50);
    EXPECT_EQ("foo excl", exclusive(f), 50 - 10 - 6);
    EXPECT_EQ("foo min", f->n.time_min, 20);
    EXPECT_EQ("foo max", f->n.time_max, 30);
    EXPECT_EQ("foo metric", f->metrics[flops], 7);
    EXPECT_EQ("bar visits", b->n.visits, 1);
    EXPECT_EQ("bar incl", b->n.time_incl, 10);
    EXPECT_EQ("send bytes", s->n.bytes_sent, 100);
    EXPECT_EQ("send messages", s->n.messages_sent, 1);
    EXPECT_EQ("send incl", s->n.time_incl, 6);
    EXPECT_EQ("baz visits", z->n.visits, 2);
    EXPECT_EQ("baz incl", z->n.time_incl, 25);
    EXPECT_EQ("baz excl", exclusive(z), 25 - 19 - 4);
    EXPECT_EQ("n=3 visits", p3->n.visits, 1);
    EXPECT_EQ("n=3 incl", p3->n.time_incl, 19);
    EXPECT_EQ("n=3 excl", exclusive(p3), 11);
    EXPECT_EQ("n=4 incl", p4->n.time_incl, 4);
    EXPECT_EQ("qux incl", q->n.time_incl, 8);

    /* an exit without its enter, with only the program region open: ignored
     * (a warning), the program region stays open until the end */
    at(250); scorep_exit(foo);
    EXPECT_EQ("program still open after a stray exit", program->n.visits, 0);
    EXPECT_EQ("stray exit: main's visits", m->n.visits, 1);

    at(300);
    scorep_measurement_finalize();
    /* the end of the measurement leaves the program region */
    EXPECT_EQ("program visits", program->n.visits, 1);
    EXPECT_EQ("program incl", program->n.time_incl, 300);
    EXPECT_EQ("program excl", exclusive(program), 100);
    printf("experiment: %s\n", scorep_experiment_directory() ? scorep_experiment_directory() : "(none)");
    printf(failures ? "FAILED %d checks\n" : "ok\n", failures);
    return failures ? 1 : 0;
}
