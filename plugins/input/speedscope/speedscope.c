/*
 * Input plugin "speedscope": speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), as speedscope
 * exports it and as flamekit's speedscope output writes it:
 *
 *     {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *      "shared": {"frames": [{"name": "main", "file": "a.c", "line": 3}, ...]},
 *      "profiles": [
 *        {"type": "sampled", "name": "T", "unit": "milliseconds", "startValue": 0,
 *         "endValue": 9, "samples": [[0, 1], [0]], "weights": [4, 5]},
 *        {"type": "evented", "name": "U", "unit": "none", "startValue": 0, "endValue": 5,
 *         "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "C", "frame": 0, "at": 5}]}]}
 *
 * A frame is its name.  A sampled profile's sample i is its stack (frame
 * indices, root first) weighted by weights[i], at startValue plus the
 * weights before it; an evented profile's open frames ("O") and closes
 * ("C") become one sample for each stretch between two events while a
 * frame is open, weighted by the stretch's length (the frame's self time)
 * and timed at its start.  Units become the series unit: nanoseconds,
 * microseconds, milliseconds and seconds are converted to ns (times too),
 * bytes stay bytes and none is samples; profiles in units of two kinds
 * are refused.  Each profile is one thread: a profile named as flamekit
 * names them ("[COMM ]tid T[ (pid P)]") gives that thread name, tid and
 * pid back; any other name is the thread name (comm), with tid the
 * profile's number (1, 2, ...).  A sample with an empty stack (speedscope's
 * idle time) is skipped and counted.
 *
 * The JSON is streamed through yajl (libfkjson).  A profile's samples and
 * weights are two arrays, so each profile is held as frame indices (4
 * bytes each) until it closes, then pushed and dropped; when "profiles"
 * comes before "shared", the profiles wait for the frames.
 */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fk_json.h"
#include "../common/time.h"

#define WHAT "speedscope file"
#define SCHEMA "https://www.speedscope.app/file-format-schema.json"

enum kind { K_SKIP, K_TOP, K_SHARED, K_FRAMES, K_FRAME, K_PROFILES, K_PROF, K_SAMPLES,
            K_STACK, K_WEIGHTS, K_EVENTS, K_EVENT };
enum key { Y_OTHER, Y_SHARED, Y_PROFILES, Y_FRAMES, Y_NAME, Y_TYPE, Y_UNIT, Y_START,
           Y_SAMPLES, Y_WEIGHTS, Y_EVENTS, Y_FRAME, Y_AT };
enum ptype { P_NONE, P_SAMPLED, P_EVENTED };
enum ukind { U_UNSET, U_SAMPLES, U_NS, U_BYTES };

static const struct { unsigned char kind; const char *name; unsigned char key; } keys[] = {
	{ K_TOP, "shared", Y_SHARED }, { K_TOP, "profiles", Y_PROFILES },
	{ K_SHARED, "frames", Y_FRAMES }, { K_FRAME, "name", Y_NAME },
	{ K_PROF, "type", Y_TYPE }, { K_PROF, "name", Y_NAME }, { K_PROF, "unit", Y_UNIT },
	{ K_PROF, "startValue", Y_START }, { K_PROF, "samples", Y_SAMPLES },
	{ K_PROF, "weights", Y_WEIGHTS }, { K_PROF, "events", Y_EVENTS },
	{ K_EVENT, "type", Y_TYPE }, { K_EVENT, "frame", Y_FRAME }, { K_EVENT, "at", Y_AT },
};

/* One sample waiting to be pushed: idx[off .. off+n) of its profile's. */
struct smp {
	size_t off, n;
	double w, t;          /* weight and time in the profile's unit */
	uint64_t line;        /* where its stack closed, for the skip count */
};

/* A profile read whole, waiting for the frames or for its turn. */
struct prof {
	char *name;
	size_t name_len;
	double scale;         /* to ns, 1 for samples and bytes */
	int timed;
	unsigned number;      /* 1-based */
	size_t s0, s1;        /* its samples: smps[s0 .. s1) */
};

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	struct fk_json j;
	unsigned char kind[FK_JSON_MAX_DEPTH + 2];
	unsigned char key[FK_JSON_MAX_DEPTH + 2];
	unsigned depth;
	uint32_t seen[FK_JSON_MAX_DEPTH + 2]; /* keys met in each open object */
	/* shared.frames: names back to back */
	char *text;
	size_t tlen, tcap;
	size_t *foff;         /* frame k's name is text[foff[k] .. foff[k+1]) */
	size_t nframes, capf;
	int frames_done, has_shared, has_profiles, frame_named;
	/* the profile being read, and those waiting */
	struct prof cur;
	int cur_type, cur_unit, has_samples, has_weights, has_events;
	double start;
	uint32_t *idx;
	size_t nidx, capidx;
	struct smp *smps;
	size_t nsmps, capsmps;
	double *weights;
	size_t nweights, capweights;
	/* evented: the open frames, the last event's time */
	uint32_t *open;
	size_t nopen, capopen;
	double last_at;
	int ev_type, ev_has_frame, ev_has_at;
	double ev_frame, ev_at;
	size_t nevents;
	struct prof *waiting;
	size_t nwaiting, capwaiting;
	unsigned nprofiles;
	int unit_kind;
	const char *unit_name;
	/* pushing: a trie of the stacks seen (frame index paths), each
	 * node caching the sink's leaf, so a repeated stack is one push_node */
	struct tnode *trie;
	size_t ntrie, captrie;
	uint32_t *slots;             /* open addressing: trie index + 1, 0 empty */
	size_t nslots;
	struct fk_frameref *refs;
	size_t caprefs;
	int push_rc;
};

struct tnode {
	uint32_t parent, frame;
	fk_node_t leaf;
};

#define GROW(c, arr, cap, need) FK_JSON_GROW((c)->h, arr, cap, need)

/* --- pushing -------------------------------------------------------- */

static size_t slot_of(uint32_t parent, uint32_t frame, size_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 | frame) * 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 29) & mask;
}

static int rehash(struct ctx *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 4096;
	uint32_t *sl = c->h->alloc(n * sizeof *sl);

	if (!sl)
		return -1;
	memset(sl, 0, n * sizeof *sl);
	for (size_t i = 1; i < c->ntrie; i++) {
		size_t k = slot_of(c->trie[i].parent, c->trie[i].frame, n - 1);
		while (sl[k])
			k = (k + 1) & (n - 1);
		sl[k] = (uint32_t)i + 1;
	}
	c->h->free(c->slots);
	c->slots = sl;
	c->nslots = n;
	return 0;
}

/* The trie node of frame f under node parent (0 is the root), added when
 * new; (size_t)-1 when out of memory. */
static size_t child(struct ctx *c, uint32_t parent, uint32_t f)
{
	size_t k;

	if (c->ntrie * 2 >= c->nslots && rehash(c) < 0)
		return (size_t)-1;
	k = slot_of(parent, f, c->nslots - 1);
	for (; c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
		const struct tnode *t = &c->trie[c->slots[k] - 1];
		if (t->parent == parent && t->frame == f)
			return c->slots[k] - 1;
	}
	if (c->ntrie >= UINT32_MAX - 1 || GROW(c, c->trie, c->captrie, c->ntrie + 1) < 0)
		return (size_t)-1;
	c->trie[c->ntrie].parent = parent;
	c->trie[c->ntrie].frame = f;
	c->trie[c->ntrie].leaf = FK_NODE_NONE;
	c->slots[k] = (uint32_t)c->ntrie + 1;
	return c->ntrie++;
}

/* A profile named "[COMM ]tid T[ (pid P)]" (flamekit's speedscope output):
 * its parts; 0 when it is named otherwise. */
static int flamekit_name(const char *s, size_t n, size_t *comm_len, long *tid, long *pid)
{
	size_t e = n, i;
	char num[24];

	*pid = -1;
	if (e > 0 && s[e - 1] == ')') { /* " (pid P)" */
		for (i = e - 1; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
			;
		if (i + 1 < e && i >= 6 && memcmp(s + i - 6, " (pid ", 6) == 0 && e - 1 - i < 12) {
			memcpy(num, s + i, e - 1 - i);
			num[e - 1 - i] = '\0';
			*pid = atol(num);
			e = i - 6;
		} else {
			return 0;
		}
	}
	for (i = e; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		;
	if (i == e || e - i > 10 || i < 4 || memcmp(s + i - 4, "tid ", 4) != 0)
		return 0;
	memcpy(num, s + i, e - i);
	num[e - i] = '\0';
	*tid = atol(num);
	if (*tid > INT32_MAX || *pid > INT32_MAX)
		return 0;
	i -= 4;
	if (i == 0) {
		*comm_len = 0;
		return 1;
	}
	if (s[i - 1] != ' ')
		return 0;
	*comm_len = i - 1;
	return 1;
}

static int push_prof(struct ctx *c, const struct prof *p)
{
	const struct fk_host *h = c->h;
	struct fk_sample smp;
	size_t comm_len = p->name_len;
	long tid = p->number, pid = -1;
	int rc = 0;

	if (!flamekit_name(p->name, p->name_len, &comm_len, &tid, &pid))
		comm_len = p->name_len, tid = p->number, pid = -1;
	memset(&smp, 0, sizeof smp);
	smp.flags = FK_SAMPLE_TID | (pid >= 0 ? FK_SAMPLE_PID : 0) | (comm_len ? FK_SAMPLE_COMM : 0);
	smp.tid = (int32_t)tid;
	smp.pid = (int32_t)pid;
	smp.comm = p->name;
	smp.comm_len = comm_len;
	for (size_t i = p->s0; i < p->s1 && rc == 0; i++) {
		const struct smp *s = &c->smps[i];
		if (s->n == 0) {
			h->input_skip(c->in, s->line);
			continue;
		}
		size_t t = 0;
		for (size_t k = 0; k < s->n; k++) {
			uint32_t f = c->idx[s->off + k];
			if (f >= c->nframes)
				return h->input_error(c->in, s->line, "not a " WHAT ": profile %u names frame "
				                      "%" PRIu32 ", but shared.frames has %zu", p->number, f,
				                      c->nframes);
			if ((t = child(c, (uint32_t)t, f)) == (size_t)-1)
				return FK_ERR_NOMEM;
		}
		smp.weight[0] = s->w * p->scale;
		smp.flags &= ~(unsigned)FK_SAMPLE_TIME;
		if (p->timed) {
			double ns = s->t * p->scale;
			if (!fk_time_ns_fits(ns))
				return h->input_error(c->in, s->line, "not a " WHAT ": profile %u has a sample "
				                      "at %g ns, beyond the " FK_TIME_YEARS " years either "
				                      "side of 0 that flamekit's times hold", p->number, ns);
			smp.flags |= FK_SAMPLE_TIME;
			smp.time_ns = (int64_t)llround(ns);
		}
		if (c->trie[t].leaf != FK_NODE_NONE) {
			rc = h->push_node(c->sink, c->trie[t].leaf, &smp);
			continue;
		}
		if (GROW(c, c->refs, c->caprefs, s->n) < 0)
			return FK_ERR_NOMEM;
		for (size_t k = 0; k < s->n; k++) {
			uint32_t f = c->idx[s->off + k];
			memset(&c->refs[k], 0, sizeof c->refs[k]);
			c->refs[k].name = c->text + c->foff[f];
			c->refs[k].len = c->foff[f + 1] - c->foff[f];
		}
		smp.frames = c->refs;
		smp.nframes = s->n;
		rc = h->push(c->sink, &smp, &c->trie[t].leaf);
	}
	return rc;
}

/* Push every waiting profile once the frames are known; drop them. */
static int flush(struct ctx *c)
{
	int rc = 0;

	if (!c->frames_done)
		return 0;
	for (size_t i = 0; i < c->nwaiting && rc == 0; i++)
		rc = push_prof(c, &c->waiting[i]);
	for (size_t i = 0; i < c->nwaiting; i++)
		c->h->free(c->waiting[i].name);
	c->nwaiting = 0;
	c->nidx = c->nsmps = 0;
	return rc;
}

/* --- reading -------------------------------------------------------- */

static int fail(struct ctx *c, const char *msg)
{
	return fk_json_fail(&c->j, "%s", msg);
}

static int add_sample(struct ctx *c, size_t off, size_t n, double w, double t)
{
	struct smp *s;

	if (GROW(c, c->smps, c->capsmps, c->nsmps + 1) < 0)
		return fk_json_nomem(&c->j);
	s = &c->smps[c->nsmps++];
	s->off = off;
	s->n = n;
	s->w = w;
	s->t = t;
	s->line = fk_json_line(&c->j);
	return 1;
}

static int set_unit(struct ctx *c, const unsigned char *s, size_t len)
{
	static const struct { const char *name; int kind; double scale; } units[] = {
		{ "none", U_SAMPLES, 1 }, { "bytes", U_BYTES, 1 }, { "nanoseconds", U_NS, 1 },
		{ "microseconds", U_NS, 1e3 }, { "milliseconds", U_NS, 1e6 }, { "seconds", U_NS, 1e9 },
	};

	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strlen(units[i].name) == len && memcmp(units[i].name, s, len) == 0) {
			c->cur_unit = units[i].kind;
			c->cur.scale = units[i].scale;
			c->cur.timed = units[i].kind == U_NS;
			return 1;
		}
	return fk_json_fail(&c->j, "profile %u has unit \"%.*s\", not one of none, bytes, "
	                    "nanoseconds, microseconds, milliseconds, seconds", c->nprofiles,
	                    (int)(len > 40 ? 40 : len), (const char *)s);
}

/* An event closed: the stretch since the last one goes to the open stack. */
static int end_event(struct ctx *c)
{
	uint32_t f;

	if (!c->ev_type || !c->ev_has_frame || !c->ev_has_at)
		return fail(c, "an event needs \"type\" (\"O\" or \"C\"), \"frame\" and \"at\"");
	if (!(c->ev_frame >= 0 && c->ev_frame < 4294967295.0 && c->ev_frame == floor(c->ev_frame)))
		return fail(c, "an event's frame is not an index into shared.frames");
	f = (uint32_t)c->ev_frame;
	if (c->nevents++ > 0 && !(c->ev_at >= c->last_at))
		return fail(c, "an event is earlier than the one before it");
	if (c->nopen && c->ev_at > c->last_at) {
		size_t off = c->nidx;
		if (GROW(c, c->idx, c->capidx, c->nidx + c->nopen) < 0)
			return fk_json_nomem(&c->j);
		memcpy(c->idx + c->nidx, c->open, c->nopen * sizeof *c->open);
		c->nidx += c->nopen;
		if (!add_sample(c, off, c->nopen, c->ev_at - c->last_at, c->last_at))
			return 0;
	}
	c->last_at = c->ev_at;
	if (c->ev_type == 'O') {
		if (GROW(c, c->open, c->capopen, c->nopen + 1) < 0)
			return fk_json_nomem(&c->j);
		c->open[c->nopen++] = f;
	} else {
		if (!c->nopen || c->open[c->nopen - 1] != f)
			return fk_json_fail(&c->j, "an event closes frame %" PRIu32 ", which is not the "
			                    "innermost open frame", f);
		c->nopen--;
	}
	return 1;
}

static int begin_prof(struct ctx *c)
{
	memset(&c->cur, 0, sizeof c->cur);
	c->cur.number = ++c->nprofiles;
	c->cur.s0 = c->nsmps;
	c->cur.scale = 1;
	c->cur_type = P_NONE;
	c->cur_unit = U_UNSET;
	c->has_samples = c->has_weights = c->has_events = 0;
	c->start = 0;
	c->nweights = 0;
	c->nopen = 0;
	c->nevents = 0;
	return 1;
}

static int end_prof(struct ctx *c)
{
	static const char *const unames[] = { "", "none (samples)", "a unit of time", "bytes" };
	struct prof *p = &c->cur;

	if (c->cur_type == P_NONE)
		return fail(c, "a profile has no \"type\" (\"sampled\" or \"evented\")");
	if (c->cur_unit == U_UNSET)
		return fail(c, "a profile has no \"unit\"");
	if (c->cur_type == P_SAMPLED) {
		double t = c->start;
		if (!c->has_samples || !c->has_weights)
			return fail(c, "a sampled profile needs \"samples\" and \"weights\"");
		if (c->nweights != c->nsmps - p->s0)
			return fk_json_fail(&c->j, "profile %u has %zu samples and %zu weights", p->number,
			                    c->nsmps - p->s0, c->nweights);
		for (size_t i = p->s0; i < c->nsmps; i++) {
			c->smps[i].w = c->weights[i - p->s0];
			c->smps[i].t = t;
			t += c->smps[i].w;
		}
	} else {
		if (!c->has_events)
			return fail(c, "an evented profile needs \"events\"");
		if (c->nopen)
			return fk_json_fail(&c->j, "profile %u ends with %zu frames still open", p->number,
			                    c->nopen);
	}
	if (c->unit_kind != U_UNSET && c->unit_kind != c->cur_unit)
		return fk_json_fail(&c->j, "profile %u is in %s, an earlier one in %s: flamekit reads "
		                    "one kind of unit per input", p->number, unames[c->cur_unit],
		                    unames[c->unit_kind]);
	c->unit_kind = c->cur_unit;
	p->s1 = c->nsmps;
	if (!p->name && !(p->name = c->h->alloc(1)))
		return fk_json_nomem(&c->j);
	if (GROW(c, c->waiting, c->capwaiting, c->nwaiting + 1) < 0)
		return fk_json_nomem(&c->j);
	c->waiting[c->nwaiting++] = *p;
	memset(p, 0, sizeof *p);
	if ((c->push_rc = flush(c)) < 0)
		return c->push_rc == FK_ERR_NOMEM ? fk_json_nomem(&c->j) : fk_json_stop(&c->j, c->push_rc);
	return 1;
}

static int end_frame(struct ctx *c)
{
	if (!c->frame_named)
		return fk_json_fail(&c->j, "frame %zu of shared.frames has no \"name\" string", c->nframes);
	if (c->nframes >= UINT32_MAX - 1)
		return fail(c, "more than 2^32 frames, beyond what flamekit holds");
	if (GROW(c, c->foff, c->capf, c->nframes + 2) < 0)
		return fk_json_nomem(&c->j);
	c->foff[++c->nframes] = c->tlen;
	return 1;
}

static int scalar(void *x, int type, double num, const unsigned char *s, size_t len)
{
	struct ctx *c = x;
	unsigned k = c->kind[c->depth], key = c->key[c->depth];

	switch (k) {
	case K_STACK:
		if (type != 'n' || !(num >= 0 && num < 4294967295.0 && num == floor(num)))
			return fail(c, "a sample's stack holds something that is not a frame index");
		if (GROW(c, c->idx, c->capidx, c->nidx + 1) < 0)
			return fk_json_nomem(&c->j);
		c->idx[c->nidx++] = (uint32_t)num;
		return 1;
	case K_WEIGHTS:
		if (type != 'n' || !(num == num && fabs(num) < 1e300))
			return fail(c, "a weight is not a number");
		if (GROW(c, c->weights, c->capweights, c->nweights + 1) < 0)
			return fk_json_nomem(&c->j);
		c->weights[c->nweights++] = num;
		return 1;
	case K_SAMPLES:
		return fail(c, "a sample is not an array of frame indices");
	case K_FRAMES:
	case K_PROFILES:
	case K_EVENTS:
		return fail(c, k == K_FRAMES ? "a frame is not an object" : k == K_EVENTS ?
		            "an event is not an object" : "a profile is not an object");
	case K_FRAME:
		if (key == Y_NAME) {
			if (type != 's')
				return fail(c, "a frame's \"name\" is not a string");
			if (GROW(c, c->text, c->tcap, c->tlen + len + 1) < 0)
				return fk_json_nomem(&c->j);
			memcpy(c->text + c->tlen, s, len);
			c->tlen += len;
			c->frame_named = 1;
		}
		return 1;
	case K_PROF:
		if (key == Y_TYPE) {
			if (type == 's' && len == 7 && memcmp(s, "sampled", 7) == 0)
				c->cur_type = P_SAMPLED;
			else if (type == 's' && len == 7 && memcmp(s, "evented", 7) == 0)
				c->cur_type = P_EVENTED;
			else
				return fail(c, "a profile's \"type\" is neither \"sampled\" nor \"evented\"");
		} else if (key == Y_NAME) {
			if (type != 's')
				return fail(c, "a profile's \"name\" is not a string");
			if (!(c->cur.name = c->h->alloc(len + 1)))
				return fk_json_nomem(&c->j);
			memcpy(c->cur.name, s, len);
			c->cur.name[len] = '\0';
			c->cur.name_len = len;
		} else if (key == Y_UNIT) {
			if (type != 's')
				return fail(c, "a profile's \"unit\" is not a string");
			return set_unit(c, s, len);
		} else if (key == Y_START) {
			if (type != 'n' || !(fabs(num) < 1e300))
				return fail(c, "a profile's \"startValue\" is not a number");
			c->start = num;
		} else if (key == Y_SAMPLES || key == Y_WEIGHTS || key == Y_EVENTS) {
			return fail(c, key == Y_EVENTS ? "\"events\" is not an array" :
			            key == Y_WEIGHTS ? "\"weights\" is not an array" : "\"samples\" is not an array");
		}
		return 1;
	case K_EVENT:
		if (key == Y_TYPE) {
			if (type != 's' || len != 1 || (s[0] != 'O' && s[0] != 'C'))
				return fail(c, "an event's \"type\" is neither \"O\" nor \"C\"");
			c->ev_type = s[0];
		} else if (key == Y_FRAME || key == Y_AT) {
			if (type != 'n' || !(fabs(num) < 1e300))
				return fail(c, key == Y_AT ? "an event's \"at\" is not a number" :
				            "an event's \"frame\" is not a number");
			if (key == Y_AT)
				c->ev_has_at = 1, c->ev_at = num;
			else
				c->ev_has_frame = 1, c->ev_frame = num;
		}
		return 1;
	case K_TOP:
		if (key == Y_SHARED || key == Y_PROFILES)
			return fail(c, key == Y_SHARED ? "\"shared\" is not an object" : "\"profiles\" is not an array");
		return 1;
	case K_SHARED:
		if (key == Y_FRAMES)
			return fail(c, "shared.frames is not an array");
		return 1;
	}
	if (c->depth == 0)
		return fail(c, "the JSON is not an object");
	return 1;
}


static int on_key(void *x, const unsigned char *s, size_t len)
{
	struct ctx *c = x;
	unsigned k = c->kind[c->depth];

	c->key[c->depth] = Y_OTHER;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (keys[i].kind == k && strlen(keys[i].name) == len && !memcmp(keys[i].name, s, len)) {
			if (c->seen[c->depth] & (1u << keys[i].key))
				return fk_json_fail(&c->j, "\"%s\" twice in one object", keys[i].name);
			c->seen[c->depth] |= 1u << keys[i].key;
			c->key[c->depth] = keys[i].key;
			break;
		}
	return 1;
}

static int open_container(void *x, int is_map)
{
	struct ctx *c = x;
	unsigned parent = c->kind[c->depth], key = c->key[c->depth], nk = K_SKIP;

	if (c->depth >= FK_JSON_MAX_DEPTH)
		return 0; /* yajl reports it, at this byte */
	if (c->depth == 0)
		nk = is_map ? K_TOP : K_SKIP;
	else if (parent == K_TOP && key == Y_SHARED && is_map)
		nk = K_SHARED, c->has_shared = 1;
	else if (parent == K_TOP && key == Y_PROFILES && !is_map)
		nk = K_PROFILES, c->has_profiles = 1;
	else if (parent == K_SHARED && key == Y_FRAMES && !is_map)
		nk = c->frames_done ? K_SKIP : K_FRAMES;
	else if (parent == K_FRAMES && is_map)
		nk = K_FRAME, c->frame_named = 0;
	else if (parent == K_PROFILES && is_map)
		nk = K_PROF, begin_prof(c);
	else if (parent == K_PROF && key == Y_SAMPLES && !is_map)
		nk = K_SAMPLES, c->has_samples = 1;
	else if (parent == K_PROF && key == Y_WEIGHTS && !is_map)
		nk = K_WEIGHTS, c->has_weights = 1;
	else if (parent == K_PROF && key == Y_EVENTS && !is_map)
		nk = K_EVENTS, c->has_events = 1;
	else if (parent == K_SAMPLES && !is_map)
		nk = K_STACK;
	else if (parent == K_EVENTS && is_map)
		nk = K_EVENT, c->ev_type = c->ev_has_frame = c->ev_has_at = 0;
	else if (parent == K_TOP || parent == K_SHARED || parent == K_FRAME || parent == K_PROF ||
	         parent == K_EVENT) {
		if (key != Y_OTHER && !scalar(c, is_map ? 'o' : 'a', NAN, NULL, 0))
			return 0;
	} else if (parent != K_SKIP && !scalar(c, is_map ? 'o' : 'a', NAN, NULL, 0)) {
		return 0;
	}
	if (c->depth == 0 && !is_map)
		return fail(c, "the JSON is an array, not an object");
	c->depth++;
	c->kind[c->depth] = (unsigned char)nk;
	c->key[c->depth] = Y_OTHER;
	c->seen[c->depth] = 0;
	if (nk == K_STACK)
		c->cur.s1 = c->nidx; /* the stack's first index */
	return 1;
}

static int on_end(void *x)
{
	struct ctx *c = x;
	unsigned k = c->kind[c->depth];
	int rc = 1;

	switch (k) {
	case K_STACK:
		rc = add_sample(c, c->cur.s1, c->nidx - c->cur.s1, 0, 0);
		break;
	case K_FRAME:
		rc = end_frame(c);
		break;
	case K_FRAMES:
		c->frames_done = 1;
		break;
	case K_EVENT:
		rc = end_event(c);
		break;
	case K_PROF:
		rc = end_prof(c);
		break;
	default:
		break;
	}
	c->depth--;
	return rc;
}

static const struct fk_json_ops ops = {
	.scalar = scalar, .key = on_key, .open = open_container, .close = on_end,
};

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct ctx *c = h->alloc(sizeof *c);
	const struct fk_json_opts *o = op;
	struct fk_input_limit lim;
	int rc;

	fk_limit_for(h, in, o ? o->max_input_size : NULL, &lim);
	if (!c) {
		h->input_error(in, 0, "out of memory");
		return FK_ERR_NOMEM;
	}
	memset(c, 0, sizeof *c);
	c->h = h;
	c->in = in;
	c->sink = sink;
	fk_json_init(&c->j, h, in, WHAT, &lim);
	/* text is never NULL, so that a name of length 0 points somewhere;
	 * trie node 0 is the root */
	if (!(c->foff = h->alloc(2 * sizeof *c->foff)) || GROW(c, c->text, c->tcap, 1) < 0 ||
	    GROW(c, c->trie, c->captrie, 1) < 0) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	c->capf = 2;
	c->foff[0] = 0;
	c->trie[0].leaf = FK_NODE_NONE;
	c->ntrie = 1;
	if ((rc = fk_json_parse(&c->j, &ops, c)) < 0)
		goto out;
	if (!c->has_shared || !c->frames_done || !c->has_profiles) {
		rc = h->input_error(in, 0, "not a " WHAT ": no %s", !c->has_profiles ?
		                    "\"profiles\" array at the top level" : "\"shared\": {\"frames\": [...]}");
		goto out;
	}
	if ((rc = flush(c)) < 0)
		goto out;
	if (h->sink_set_unit && c->unit_kind != U_UNSET)
		h->sink_set_unit(sink, c->unit_kind == U_NS ? "ns" : c->unit_kind == U_BYTES ? "bytes" : "samples");
out:
	if (rc == FK_ERR_NOMEM && !c->j.nomem)
		h->input_error(in, 0, "out of memory");
	for (size_t i = 0; i < c->nwaiting; i++)
		h->free(c->waiting[i].name);
	h->free(c->cur.name);
	h->free(c->waiting);
	h->free(c->text);
	h->free(c->foff);
	h->free(c->idx);
	h->free(c->smps);
	h->free(c->weights);
	h->free(c->open);
	h->free(c->refs);
	h->free(c->trie);
	h->free(c->slots);
	h->free(c);
	return rc;
}

/* Detection: an object whose "$schema" is speedscope's, as every file
 * speedscope or flamekit writes has (speedscope's own importer checks it
 * the same way). */
static int probe(const unsigned char *buf, size_t len)
{
	if (fk_json_first(buf, len) != '{' || !fk_json_has_key(buf, len, "$schema"))
		return 0;
	return memmem(buf, len, "\"" SCHEMA "\"", sizeof SCHEMA + 1) ? 100 : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "speedscope",
		.version = "1.0",
		.description = "speedscope's JSON file format (sampled and evented profiles)",
		.options = fk_json_options,
		.options_size = sizeof(struct fk_json_opts),
	},
	.probe = probe,
	.parse = parse,
	.check = fk_json_check,
	/* speedscope demangles C++ names on import, in full */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
