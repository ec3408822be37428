/*
 * Input plugin "callgrind": valgrind's callgrind.out and cachegrind.out
 * files (and PHP Xdebug's profiler files, the same format), as
 * valgrind's docs/callgrind-format describes them:
 *
 *     events: Ir Dr                  <- the cost columns
 *     positions: line                <- position columns before them
 *     fl=(1) burn.c                  <- files, objects: ignored
 *     fn=(1) main                    <- "(id) name" defines, "(id)" names
 *     16 3 1                         <- self cost of main at line 16
 *     cfn=(2) work                   <- a call from main to work...
 *     calls=2 20                     <- ...made twice...
 *     17 400 20                      <- ...costing 400 Ir inclusive
 *
 * Positions may be "+N", "-N", "*" or hex ("0x4a0"): only their count
 * matters here.  Missing trailing costs are 0.
 *
 * The file keeps each function's self cost and each call arc's inclusive
 * cost, not whole stacks, so the call paths are rebuilt (as gprof2dot's
 * and the flame-graph converters do): arcs that close a cycle (a call to
 * a function already on the way from a root, found by one depth-first
 * walk in file order) are dropped, since their cost is already counted
 * in the callee's; functions are then visited in topological order, and
 * the cost reaching a function along its paths is shared among its self
 * cost and its kept arcs in proportion to their costs, each share rounded
 * so that every column and every path sums exactly.  Where no cycle is
 * involved this keeps each function's self cost, each function's and
 * each arc's inclusive cost and the total exact; the split among a
 * callee's paths is the approximation.  A function's cost not reached by
 * its callers' arcs becomes a root of its own.  Paths stop at MAX_DEPTH
 * frames, and a path costing less than the total / 2^MIN_SHARE_BITS is
 * not followed (what lies deeper is the last frame's self cost); more than
 * MAX_NODES paths is an error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

#define MAX_DEPTH 512
#define MAX_NODES (1u << 22)
#define MAX_EVENTS 64
#define MAX_SUM (UINT64_C(1) << 62) /* so that no sum of costs overflows */
#define MIN_SHARE_BITS 20 /* a path costing under total / 2^20 ends */

struct opts {
	const char *event; /* STRING: the event to weigh by, NULL for the first */
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "event", NULL, struct opts, event,
	          "the event (cost column) to weigh by, e.g. Dr; the first of the events: line by default"),
	FK_OPTION_END,
};

struct arc {
	uint32_t callee;
	bool back;     /* closes a cycle: dropped */
	uint64_t cost;
	uint64_t flow; /* its share of the callee's conserved cost */
};

/* A kept arc into a function: its caller and the arc's index there. */
struct inarc {
	uint32_t caller, arc;
};

struct func {
	size_t off, len;        /* name, in cg.names, after its object's and a '\001' */
	size_t koff, klen;      /* the key: object '\001' name */
	uint64_t self;
	struct arc *arcs;
	size_t narcs, cap_arcs;
	uint64_t in;            /* kept arcs into it */
	uint64_t root;          /* its conserved cost no arc brings */
	struct inarc *ins;      /* its kept arcs in */
	size_t nins, cap_ins;
	uint32_t *nodes;        /* its paths */
	size_t nnodes, cap_nodes;
	int state;              /* walk: 0 new, 1 on the way, 2 done */
	size_t next;            /* walk: the next arc to follow */
};

struct node {
	uint32_t parent;        /* UINT32_MAX for a root */
	uint32_t fn;
	uint32_t depth;
	uint64_t w, self;
};

/* The names of one "(id)" space: id -> a string of cg.strs. */
struct str {
	size_t off, len;
	bool set;
};

struct idmap {
	struct str *v;
	size_t cap;
	size_t defined;  /* ids given a name */
};

struct cg {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	char *names;
	size_t nlen, ncap;
	struct func *fn;
	size_t nfn, cap_fn;
	uint32_t *hash;          /* open addressing: function index + 1 */
	size_t hcap;
	struct idmap fnids, obids;
	char *strs;              /* names of the id spaces */
	size_t slen, scap;
	struct str ob, cob;      /* the current ob= and cob= (cob.set until cfn=) */
	struct node *nodes;
	size_t nnodes, cap_nodes;
	uint64_t minw;           /* paths costing less are not followed */
	uint64_t sum;            /* every cost read, at most MAX_SUM */
	int npos;                /* position columns */
	int event;               /* the cost column weighed, -1 before events: */
	uint64_t events_line;
	int64_t cur, callee;     /* current fn= and cfn=, -1 when none */
	uint64_t calls_line;     /* a calls= line waiting for its cost line */
	bool any;
};

/* n zeroed elements of size sz, or NULL. */
static void *zalloc(const struct fk_host *h, size_t n, size_t sz)
{
	void *p;

	if (n && sz > SIZE_MAX / n)
		return NULL;
	if ((p = h->alloc(n * sz > 0 ? n * sz : 1)))
		memset(p, 0, n * sz);
	return p;
}

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t x = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)s[i]) * 1099511628211ull;
	return x;
}

/* The function named s in object ob: its index, or a negative status. */
static int64_t func_of(struct cg *c, struct str ob, const char *s, size_t n)
{
	size_t i, kl = ob.len + 1 + n;

	if (c->nfn * 2 >= c->hcap) {
		size_t nc = c->hcap ? c->hcap * 2 : 1024;
		uint32_t *nh = zalloc(c->h, nc, sizeof *nh);
		if (!nh)
			return FK_ERR_NOMEM;
		for (size_t k = 0; k < c->nfn; k++) {
			size_t j = hash_name(c->names + c->fn[k].koff, c->fn[k].klen) & (nc - 1);
			while (nh[j])
				j = (j + 1) & (nc - 1);
			nh[j] = (uint32_t)k + 1;
		}
		c->h->free(c->hash);
		c->hash = nh;
		c->hcap = nc;
	}
	if (fk_vector_grow((void **)&c->names, &c->ncap, c->nlen + kl + 1, 1, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	/* the key is built where it would be kept */
	memcpy(c->names + c->nlen, c->strs + ob.off, ob.len);
	c->names[c->nlen + ob.len] = '\001';
	memcpy(c->names + c->nlen + ob.len + 1, s, n);
	for (i = hash_name(c->names + c->nlen, kl) & (c->hcap - 1); c->hash[i]; i = (i + 1) & (c->hcap - 1)) {
		const struct func *f = &c->fn[c->hash[i] - 1];
		if (f->klen == kl && memcmp(c->names + f->koff, c->names + c->nlen, kl) == 0)
			return c->hash[i] - 1;
	}
	if (c->nfn >= MAX_NODES || fk_vector_grow((void **)&c->fn, &c->cap_fn, c->nfn + 1,
	    sizeof *c->fn, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	memset(&c->fn[c->nfn], 0, sizeof c->fn[c->nfn]);
	c->fn[c->nfn].koff = c->nlen;
	c->fn[c->nfn].klen = kl;
	c->fn[c->nfn].off = c->nlen + ob.len + 1;
	c->fn[c->nfn].len = n;
	c->nlen += kl;
	c->hash[i] = (uint32_t)c->nfn + 1;
	return (int64_t)c->nfn++;
}

static const char *trim(const char *s, size_t *n)
{
	while (*n > 0 && is_space(*s))
		s++, (*n)--;
	while (*n > 0 && is_space(s[*n - 1]))
		(*n)--;
	return s;
}

static int str_keep(struct cg *c, const char *s, size_t n, struct str *out)
{
	if (fk_vector_grow((void **)&c->strs, &c->scap, c->slen + n + 1, 1, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	memcpy(c->strs + c->slen, s, n);
	*out = (struct str){ c->slen, n, true };
	c->slen += n;
	return 0;
}

/* A name of an id space ("fn=", "ob=" values): "(id) name", "(id)" or
 * "name", in *out.  0, or a negative status (reported here). */
static int name_ref(struct cg *c, struct idmap *m, const char *s, size_t n, uint64_t ln, struct str *out)
{
	uint64_t id = 0;
	size_t i = 1, was = m->cap;

	s = trim(s, &n);
	if (n == 0 || s[0] != '(')
		return str_keep(c, s, n, out);
	while (i < n && is_digit(s[i]) && id < 100000000)
		id = id * 10 + (uint64_t)(s[i++] - '0');
	if (i == 1 || i >= n || s[i] != ')')
		return str_keep(c, s, n, out); /* "(below main)" is a name */
	s += i + 1;
	n -= i + 1;
	s = trim(s, &n);
	if (n == 0) {
		if (id >= m->cap || !m->v[id].set)
			return c->h->input_error(c->in, ln, "(%llu) names nothing defined before",
			                         (unsigned long long)id);
		*out = m->v[id];
		return 0;
	}
	/* callgrind numbers names in order: a far larger id would only make
	 * the table huge */
	if (id > 2 * m->defined + 65536)
		return c->h->input_error(c->in, ln, "(%llu) is far beyond the %zu names defined so far",
		                         (unsigned long long)id, m->defined);
	if (fk_vector_grow((void **)&m->v, &m->cap, id + 1, sizeof *m->v,
	    c->h->realloc) < 0 || str_keep(c, s, n, out) < 0)
		return FK_ERR_NOMEM;
	if (m->cap > was) /* ids not defined yet */
		memset(m->v + was, 0, (m->cap - was) * sizeof *m->v);
	m->defined += !m->v[id].set;
	m->v[id] = *out;
	return 0;
}

/* "fn=" / "cfn=": the function in object ob, its index or a negative status. */
static int64_t func_ref(struct cg *c, struct str ob, const char *s, size_t n, uint64_t ln)
{
	struct str name;
	int rc;

	if ((rc = name_ref(c, &c->fnids, s, n, ln, &name)) < 0)
		return rc;
	if (name.len == 0)
		return c->h->input_error(c->in, ln, "a function with no name");
	return func_of(c, ob, c->strs + name.off, name.len);
}

/* The next blank-separated word of s from *i: its start, *i its end (the
 * start equals *i when there is none). */
static size_t word(const char *s, size_t n, size_t *i)
{
	size_t b;

	while (*i < n && is_space(s[*i]))
		(*i)++;
	b = *i;
	while (*i < n && !is_space(s[*i]))
		(*i)++;
	return b;
}

/* "events: Ir Dr ...": which column is weighed. */
static int events_line(struct cg *c, const struct opts *o, const char *s, size_t n, uint64_t ln)
{
	size_t i = 0;
	int k = 0;
	const char *first = NULL;
	size_t firstlen = 0;

	s = trim(s, &n);
	c->event = -1;
	for (size_t b; (b = word(s, n, &i)) < i;) {
		if (k == 0) {
			first = s + b;
			firstlen = i - b;
		}
		if (c->event < 0 && (o->event ? strlen(o->event) == i - b && memcmp(o->event, s + b, i - b) == 0 : k == 0))
			c->event = k;
		k++;
	}
	if (k == 0)
		return c->h->input_error(c->in, ln, "an events: line names no event");
	if (c->event < 0)
		return c->h->input_error(c->in, ln, "no event \"%s\" here (--event): the events are %.*s",
		                         o->event, (int)n, s);
	if (c->event >= MAX_EVENTS)
		return c->h->input_error(c->in, ln, "more than %d events before \"%s\"", MAX_EVENTS, o->event);
	if (!c->any && c->h->sink_set_unit) {
		const char *ev = o->event ? o->event : NULL;
		char unit[64];
		if (!ev) {
			size_t m = firstlen < sizeof unit - 1 ? firstlen : sizeof unit - 1;
			memcpy(unit, first, m);
			unit[m] = '\0';
			ev = unit;
		}
		c->any = true;
		c->h->sink_set_unit(c->sink, strcmp(ev, "Ir") == 0 ? "instructions" : ev);
	}
	c->events_line = ln;
	return 0;
}

/* "positions: line" / "instr line" / "instr": the number of columns. */
static int positions_line(struct cg *c, const char *s, size_t n, uint64_t ln)
{
	int k = 0;

	for (size_t i = 0, b; (b = word(s, n, &i)) < i;) {
		if (!((i - b == 4 && memcmp(s + b, "line", 4) == 0) || (i - b == 5 && memcmp(s + b, "instr", 5) == 0)))
			return c->h->input_error(c->in, ln, "positions: takes line and instr, not \"%.*s\"",
			                         (int)(i - b), s + b);
		k++;
	}
	if (k == 0 || k > 2)
		return c->h->input_error(c->in, ln, "positions: takes line, instr or instr line");
	c->npos = k;
	return 0;
}

static bool cost_start(char ch)
{
	return is_digit(ch) || ch == '+' || ch == '-' || ch == '*';
}

/* A cost line: its weighed column's value in *v.  0, or a negative status. */
static int cost_line(struct cg *c, const char *s, size_t n, uint64_t ln, uint64_t *v)
{
	size_t i = 0;
	int col = 0;

	*v = 0;
	while (i < n) {
		size_t b;
		uint64_t x = 0;
		bool hex = false;
		while (i < n && is_space(s[i]))
			i++;
		if (i == n)
			break;
		b = i;
		if (col < c->npos && (s[i] == '+' || s[i] == '-'))
			i++;
		else if (col < c->npos && s[i] == '*') {
			i++;
			goto next;
		}
		if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
			hex = true;
			i += 2;
		}
		if (i == n || !(hex ? is_hex(s[i]) : is_digit(s[i])))
			return c->h->input_error(c->in, ln, "column %d of this cost line is not a number", col + 1);
		while (i < n && (hex ? is_hex(s[i]) : is_digit(s[i]))) {
			unsigned d = is_digit(s[i]) ? (unsigned)(s[i] - '0') : (unsigned)((s[i] | 0x20) - 'a' + 10);
			if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
				return c->h->input_error(c->in, ln, "column %d of this cost line is too large", col + 1);
			x = x * (hex ? 16 : 10) + d;
			i++;
		}
		if (col >= c->npos && (s[b] == '+' || s[b] == '-'))
			return c->h->input_error(c->in, ln, "cost %d of this line is signed", col - c->npos + 1);
		if (col - c->npos == c->event)
			*v = x;
	next:
		if (i < n && !is_space(s[i]))
			return c->h->input_error(c->in, ln, "column %d of this cost line is not a number", col + 1);
		col++;
	}
	if (col < c->npos)
		return c->h->input_error(c->in, ln, "this cost line has no position");
	if (col > c->npos + MAX_EVENTS * 4)
		return c->h->input_error(c->in, ln, "this cost line has more columns than events");
	return 0;
}

static int arc_add(struct cg *c, uint64_t cost)
{
	struct func *f = &c->fn[c->cur];

	for (size_t i = 0; i < f->narcs; i++)
		if (f->arcs[i].callee == (uint32_t)c->callee) {
			f->arcs[i].cost += cost;
			return 0;
		}
	if (fk_vector_grow((void **)&f->arcs, &f->cap_arcs, f->narcs + 1, sizeof *f->arcs,
	    c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	f->arcs[f->narcs].callee = (uint32_t)c->callee;
	f->arcs[f->narcs].back = false;
	f->arcs[f->narcs].cost = cost;
	f->arcs[f->narcs].flow = 0; /* set by conserve(), but for a callee of no cost at all */
	f->narcs++;
	return 0;
}

static bool is_key(const char *s, size_t n, const char *k)
{
	size_t m = strlen(k);
	return n >= m && memcmp(s, k, m) == 0;
}

/* One line of the file. */
static int line_read(struct cg *c, const struct opts *o, const char *s, size_t n, uint64_t ln)
{
	static const char *const spec[] = { "fl=", "fi=", "fe=", "cfi=", "cfl=", "jump=", "jcnd=" };
	static const char *const header[] = { "version:", "creator:", "pid:", "cmd:", "part:", "desc:",
	                                      "thread:", "summary:", "totals:" };
	int64_t f;
	uint64_t v;
	int rc;

	if (n > 0 && cost_start(s[0])) {
		if (c->event < 0)
			return c->h->input_error(c->in, ln, "a cost line before any events: line");
		if (c->cur < 0)
			return c->h->input_error(c->in, ln, "a cost line before any fn= line");
		if ((rc = cost_line(c, s, n, ln, &v)) < 0)
			return rc;
		if (v > MAX_SUM - c->sum)
			return c->h->input_error(c->in, ln, "the costs read so far add up to more than 2^62");
		c->sum += v;
		if (c->calls_line) {
			c->calls_line = 0;
			return arc_add(c, v);
		}
		c->fn[c->cur].self += v;
		return 0;
	}
	if (c->calls_line)
		return c->h->input_error(c->in, c->calls_line, "this calls= line is not followed by its cost line");
	if (is_key(s, n, "fn=")) {
		if ((f = func_ref(c, c->ob, s + 3, n - 3, ln)) < 0)
			return (int)f;
		c->cur = f;
		c->callee = -1;
		c->cob.set = false;
		return 0;
	}
	if (is_key(s, n, "cfn=")) {
		/* a cob= before it names the callee's object, else it is the caller's */
		if ((f = func_ref(c, c->cob.set ? c->cob : c->ob, s + 4, n - 4, ln)) < 0)
			return (int)f;
		c->callee = f;
		c->cob.set = false;
		return 0;
	}
	if (is_key(s, n, "ob="))
		return name_ref(c, &c->obids, s + 3, n - 3, ln, &c->ob);
	if (is_key(s, n, "cob="))
		return name_ref(c, &c->obids, s + 4, n - 4, ln, &c->cob);
	if (is_key(s, n, "calls=")) {
		if (c->cur < 0 || c->callee < 0)
			return c->h->input_error(c->in, ln, "a calls= line with no fn= and cfn= before it");
		c->calls_line = ln;
		return 0;
	}
	if (is_key(s, n, "events:"))
		return events_line(c, o, s + 7, n - 7, ln);
	if (is_key(s, n, "positions:"))
		return positions_line(c, s + 10, n - 10, ln);
	for (size_t i = 0; i < sizeof spec / sizeof *spec; i++)
		if (is_key(s, n, spec[i]))
			return 0;
	for (size_t i = 0; i < sizeof header / sizeof *header; i++)
		if (is_key(s, n, header[i]))
			return 0;
	if (probe_ignorable(s, n))
		return 0;
	c->h->input_skip(c->in, ln);
	return 0;
}

/* One depth-first walk from the functions no arc reaches (then from any
 * left, in file order): marks the arcs that close a cycle and gives the
 * functions in postorder. */
static int walk(struct cg *c, uint32_t *order)
{
	uint32_t *todo = NULL, *seen = NULL;
	size_t cap = 0, norder = 0;
	int rc = 0;

	if (!(seen = zalloc(c->h, c->nfn ? c->nfn : 1, sizeof *seen)))
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < c->nfn; i++)
		for (size_t j = 0; j < c->fn[i].narcs; j++)
			if (c->fn[i].arcs[j].callee != i)
				seen[c->fn[i].arcs[j].callee] = 1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < c->nfn; r++) {
			size_t n = 0;
			if (c->fn[r].state || (pass == 0 && seen[r]))
				continue;
			if (fk_vector_grow((void **)&todo, &cap, 1, sizeof *todo,
			    c->h->realloc) < 0) {
				rc = FK_ERR_NOMEM;
				goto out;
			}
			todo[n++] = (uint32_t)r;
			c->fn[r].state = 1;
			while (n > 0) {
				struct func *f = &c->fn[todo[n - 1]];
				if (f->next == f->narcs) {
					f->state = 2;
					order[norder++] = todo[--n];
					continue;
				}
				struct arc *a = &f->arcs[f->next++];
				if (c->fn[a->callee].state == 1)
					a->back = true;
				else if (c->fn[a->callee].state == 0) {
					if (fk_vector_grow((void **)&todo, &cap, n + 1,
					    sizeof *todo, c->h->realloc) < 0) {
						rc = FK_ERR_NOMEM;
						goto out;
					}
					c->fn[a->callee].state = 1;
					todo[n++] = a->callee;
				}
			}
		}
out:
	c->h->free(todo);
	c->h->free(seen);
	return rc;
}

static int node_new(struct cg *c, uint32_t parent, uint32_t fn, uint32_t depth, uint64_t w)
{
	struct func *f = &c->fn[fn];

	if (c->nnodes >= MAX_NODES)
		return c->h->input_error(c->in, c->h->input_lineno(c->in),
		                         "the call graph has more than %u call paths to draw", MAX_NODES);
	if (fk_vector_grow((void **)&c->nodes, &c->cap_nodes, c->nnodes + 1, sizeof *c->nodes,
	    c->h->realloc) < 0 ||
	    fk_vector_grow((void **)&f->nodes, &f->cap_nodes, f->nnodes + 1, sizeof *f->nodes,
	        c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	c->nodes[c->nnodes] = (struct node){ parent, fn, depth, w, 0 };
	f->nodes[f->nnodes++] = (uint32_t)c->nnodes++;
	return 0;
}

/* a * b / d and its remainder, without overflow (d > 0). */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t d, uint64_t *rem)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	if (rem)
		*rem = (uint64_t)(p % d);
	return (uint64_t)(p / d);
}

/* The targets t[0..k) of f's columns (self, kept arcs) for the W reaching
 * it: the columns' own costs when they sum to W, else W shared in their
 * proportion by largest remainders (ties to the first). */
static void targets(const uint64_t *col, uint64_t *t, uint64_t *rem, size_t k, uint64_t sum, uint64_t W)
{
	uint64_t given = 0;

	if (sum == W) {
		memcpy(t, col, k * sizeof *t);
		return;
	}
	if (sum == 0) {
		memset(t, 0, k * sizeof *t);
		t[0] = W;
		return;
	}
	for (size_t j = 0; j < k; j++)
		given += t[j] = muldiv(W, col[j], sum, &rem[j]);
	while (given < W) {
		size_t best = 0;
		for (size_t j = 1; j < k; j++)
			if (rem[j] > rem[best])
				best = j;
		t[best]++;
		rem[best] = 0;
		given++;
	}
}

/* Share f's paths' weights among its columns: every path's shares sum to
 * its weight and every column's to its target (floors, then the rest laid
 * out row after row over the columns' rests). */
static int split(struct cg *c, uint32_t fi)
{
	struct func *f = &c->fn[fi];
	size_t k = 1, nr = f->nnodes;
	uint64_t *col = NULL, *t, *rem, *d, *x, W = 0, sum;
	uint32_t *callee = NULL;
	size_t cur = 0;
	int rc = 0;

	for (size_t j = 0; j < f->narcs; j++)
		k += !f->arcs[j].back;
	if (!(col = zalloc(c->h, k * 5, sizeof *col)) || !(callee = zalloc(c->h, k, sizeof *callee))) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	t = col + k;
	rem = t + k;
	d = rem + k;
	x = d + k;
	col[0] = sum = f->self;
	for (size_t j = 0, m = 1; j < f->narcs; j++)
		if (!f->arcs[j].back) {
			callee[m] = f->arcs[j].callee;
			sum += col[m++] = f->arcs[j].flow;
		}
	for (size_t p = 0; p < nr; p++)
		W += c->nodes[f->nodes[p]].w;
	if (W == 0)
		goto out;
	targets(col, t, rem, k, sum, W);
	memcpy(d, t, k * sizeof *d);
	for (size_t p = 0; p < nr; p++)
		for (size_t j = 0; j < k; j++)
			d[j] -= muldiv(c->nodes[f->nodes[p]].w, t[j], W, NULL);
	for (size_t p = 0; p < nr; p++) {
		uint32_t id = f->nodes[p];
		uint64_t w = c->nodes[id].w, r = w;
		for (size_t j = 0; j < k; j++)
			r -= x[j] = muldiv(w, t[j], W, NULL);
		while (r > 0) { /* the row's rest from the columns' rests */
			uint64_t take = d[cur] < r ? d[cur] : r;
			x[cur] += take;
			d[cur] -= take;
			r -= take;
			if (d[cur] == 0 && cur + 1 < k)
				cur++;
		}
		c->nodes[id].self = x[0];
		for (size_t j = 1; j < k; j++) {
			if (x[j] == 0)
				continue;
			if (c->nodes[id].depth + 1 >= MAX_DEPTH || x[j] < c->minw) {
				c->nodes[id].self += x[j];
				continue;
			}
			if ((rc = node_new(c, id, callee[j], c->nodes[id].depth + 1, x[j])) < 0)
				goto out;
			f = &c->fn[fi];
		}
	}
out:
	c->h->free(col);
	c->h->free(callee);
	return rc;
}

/* The costs made consistent, callees first (postorder): a function's
 * conserved cost is its self cost plus its kept arcs' flows, and is
 * shared among its kept arcs in and its root part in proportion to their
 * costs (the arcs' inclusive costs; the root part is what its own cost
 * has beyond them), by largest remainders.  Where the file has no cycle
 * every flow is its arc's cost; in all cases the costs drawn sum to the
 * self costs. */
static int conserve(struct cg *c, const uint32_t *order)
{
	uint64_t *rem = NULL;
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; i < c->nfn; i++)
		for (size_t j = 0; j < c->fn[i].narcs; j++) {
			struct func *h = &c->fn[c->fn[i].arcs[j].callee];
			if (c->fn[i].arcs[j].back)
				continue;
			if (fk_vector_grow((void **)&h->ins, &h->cap_ins, h->nins + 1,
			    sizeof *h->ins, c->h->realloc) < 0)
				return FK_ERR_NOMEM;
			h->ins[h->nins++] = (struct inarc){ (uint32_t)i, (uint32_t)j };
			h->in += c->fn[i].arcs[j].cost;
		}
	for (size_t o = 0; o < c->nfn; o++) {
		struct func *f = &c->fn[order[o]];
		uint64_t total = f->self, denom, given = 0;
		for (size_t j = 0; j < f->narcs; j++)
			if (!f->arcs[j].back)
				total += f->arcs[j].flow;
		/* the flows, not the arcs' costs: an arc into a cycle counts the
		 * cycle's cost twice */
		denom = total > f->in ? total : f->in;
		if (fk_vector_grow((void **)&rem, &cap, f->nins + 1, sizeof *rem,
		    c->h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
		if (denom == 0)
			continue;
		for (size_t k = 0; k < f->nins; k++) {
			struct arc *a = &c->fn[f->ins[k].caller].arcs[f->ins[k].arc];
			given += a->flow = muldiv(total, a->cost, denom, &rem[k]);
		}
		f->root = muldiv(total, denom - f->in, denom, &rem[f->nins]);
		given += f->root;
		while (given < total) {
			size_t best = f->nins;
			for (size_t k = 0; k < f->nins; k++)
				if (rem[k] > rem[best])
					best = k;
			if (best == f->nins)
				f->root++;
			else
				c->fn[f->ins[best].caller].arcs[f->ins[best].arc].flow++;
			rem[best] = 0;
			given++;
		}
	}
out:
	c->h->free(rem);
	return rc;
}

static int draw(struct cg *c)
{
	uint32_t *order = NULL;
	struct fk_frameref *refs = NULL;
	int rc;

	if (c->nfn == 0)
		return 0;
	if (!(order = zalloc(c->h, c->nfn, sizeof *order)) ||
	    !(refs = zalloc(c->h, MAX_DEPTH, sizeof *refs))) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if ((rc = walk(c, order)) < 0)
		goto out;
	if ((rc = conserve(c, order)) < 0)
		goto out;
	for (size_t i = 0; i < c->nfn; i++)
		c->minw += c->fn[i].root;
	c->minw >>= MIN_SHARE_BITS;
	for (size_t i = 0; i < c->nfn; i++)
		if (c->fn[i].root > 0 && (rc = node_new(c, UINT32_MAX, (uint32_t)i, 0, c->fn[i].root)) < 0)
			goto out;
	for (size_t i = c->nfn; i-- > 0;)
		if ((rc = split(c, order[i])) < 0)
			goto out;
	for (size_t i = 0; i < c->nnodes; i++) {
		struct fk_sample smp;
		size_t d;
		uint32_t id = (uint32_t)i;
		if (c->nodes[i].self == 0)
			continue;
		d = c->nodes[i].depth + 1;
		for (size_t k = d; k-- > 0; id = c->nodes[id].parent) {
			const struct func *f = &c->fn[c->nodes[id].fn];
			refs[k] = frame_ref(c->names + f->off, f->len);
		}
		memset(&smp, 0, sizeof smp);
		smp.frames = refs;
		smp.nframes = d;
		smp.weight[0] = (double)c->nodes[i].self;
		if ((rc = c->h->push(c->sink, &smp, NULL)) < 0)
			goto out;
	}
out:
	c->h->free(order);
	c->h->free(refs);
	return rc;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct cg c;
	const char *line;
	size_t len;
	int got, rc = 0;

	memset(&c, 0, sizeof c);
	c.h = h;
	c.in = in;
	c.sink = sink;
	c.npos = 1;
	c.event = -1;
	c.cur = c.callee = -1;
	while ((got = h->getline(in, &line, &len)) > 0)
		if ((rc = line_read(&c, op, line, len, h->input_lineno(in))) < 0)
			goto out;
	if (got < 0) {
		rc = got;
		goto out;
	}
	if (c.calls_line) {
		rc = h->input_error(in, c.calls_line, "this calls= line is not followed by its cost line "
		                    "(is the file truncated?)");
		goto out;
	}
	rc = draw(&c);
out:
	report_nomem(h, in, rc);
	for (size_t i = 0; i < c.nfn; i++) {
		h->free(c.fn[i].arcs);
		h->free(c.fn[i].nodes);
		h->free(c.fn[i].ins);
	}
	h->free(c.fn);
	h->free(c.names);
	h->free(c.hash);
	h->free(c.fnids.v);
	h->free(c.obids.v);
	h->free(c.strs);
	h->free(c.nodes);
	return rc;
}

/* Detection: an "events:" line and fn=/cost lines, header lines and
 * little else. */
static int probe(const unsigned char *buf, size_t len)
{
	static const char *const keys[] = { "fl=", "fi=", "fe=", "ob=", "cob=", "cfi=", "cfl=", "cfn=",
	                                    "calls=", "jump=", "jcnd=", "version:", "creator:", "pid:",
	                                    "cmd:", "part:", "desc:", "thread:", "summary:", "totals:",
	                                    "positions:" };
	struct probe_window win = { buf, len, 0, 0 };
	size_t good = 0, other = 0, events = 0, fns = 0;
	const char *s;
	size_t n;

	while (probe_text_line(&win, &s, &n, &other)) {
		bool ok = false;
		if (is_key(s, n, "events:") && n > 7) {
			events++;
			ok = true;
		} else if (is_key(s, n, "fn=")) {
			fns++;
			ok = true;
		} else if (n > 0 && cost_start(s[0])) {
			ok = true;
			for (size_t i = 0; i < n && ok; i++)
				ok = is_hex(s[i]) || is_space(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '*' ||
				     s[i] == 'x';
		} else
			for (size_t i = 0; i < sizeof keys / sizeof *keys && !ok; i++)
				ok = is_key(s, n, keys[i]);
		if (ok)
			good++;
		else if (!probe_ignorable(s, n))
			other++;
	}
	if (events == 0 || fns == 0)
		return 0;
	return probe_verdict(90, good, other);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "callgrind",
		.version = "1.0",
		.description = "valgrind callgrind/cachegrind and Xdebug profiler files (call paths from the call graph)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	/* valgrind writes names demangled unless run with
	 * --demangle=no, and KCachegrind shows them as written: full */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
