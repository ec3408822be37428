/*
 * Reading a job file's YAML into a tree of scalars, mappings and lists,
 * each node keeping its line and column, and applying --set overrides to
 * it (see ytree.h for why libyaml's event API).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "job.h"
#include "ytree.h"
#include "vector/fkvector.h"

#define MAP_KEYS_MAX 4096

void fk_yt_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		fk_yt_free(n->v[i]);
	fk_free(n->v);
	fk_free(n->text);
	fk_free(n);
}

static struct ynode *ynode_new(int type, unsigned line, unsigned col)
{
	struct ynode *n = fk_calloc(1, sizeof *n);
	if (n) {
		n->type = type;
		n->line = line;
		n->col = col;
	}
	return n;
}

static int ynode_push(struct ynode *p, struct ynode *k)
{
	if (fk_vector_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v, fk_realloc) < 0)
		return FK_ERR_NOMEM;
	p->v[p->n++] = k;
	return 0;
}

const char *fk_yt_found(const struct ynode *n)
{
	static char buf[96];
	if (n->type == Y_MAP)
		return "a mapping";
	if (n->type == Y_SEQ)
		return "a list";
	snprintf(buf, sizeof buf, "\"%.60s%s\"", n->text, n->len > 60 ? "..." : "");
	return buf;
}

/* Write control characters of s as \n, \t or \xHH, in place (cut to
 * size): a quoted job value may hold a newline, and echoed raw it would
 * start a line of its own that looks like another message. */
void fk_yt_escape(char *s, size_t size)
{
	char tmp[2048];
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < sizeof tmp; p++) {
		if (*p == '\n' || *p == '\t') {
			tmp[o++] = '\\';
			tmp[o++] = *p == '\n' ? 'n' : 't';
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", *p);
		} else {
			tmp[o++] = (char)*p;
		}
	}
	tmp[o] = '\0';
	snprintf(s, size, "%s", tmp);
}


static int nomem(void)
{
	fk_log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

/* ---- reading YAML ---------------------------------------------------------- */

static int mark_err(const char *name, const yaml_mark_t *m, const char *fmt, const char *arg)
{
	char msg[1024];
	snprintf(msg, sizeof msg, fmt, arg);
	fk_log(FK_LOG_ERROR, "%s:%zu:%zu: %s", name, m->line + 1, m->column + 1, msg);
	return FK_ERR_USAGE;
}

/* Attach n under the open collection p (NULL: n is the document). */
static int attach(const char *name, struct ynode *p, struct ynode *n, struct ynode **doc)
{
	if (!p) {
		*doc = n;
		return 0;
	}
	if (p->type == Y_MAP && p->n % 2 == 0) {
		char msg[512];
		if (n->type != Y_SCALAR) {
			fk_log(FK_LOG_ERROR, "%s:%u:%u: a key must be plain text, not %s", name, n->line,
			       n->col, fk_yt_found(n));
			return FK_ERR_USAGE;
		}
		if (p->n / 2 >= MAP_KEYS_MAX) {
			fk_log(FK_LOG_ERROR, "%s:%u:%u: more than %d keys in one mapping", name, n->line,
			       n->col, MAP_KEYS_MAX);
			return FK_ERR_USAGE;
		}
		for (size_t i = 0; i < p->n; i += 2)
			if (p->v[i]->len == n->len && memcmp(p->v[i]->text, n->text, n->len) == 0) {
				snprintf(msg, sizeof msg, "duplicate key '%.80s' (first given at line %u, column %u)",
				         n->text, p->v[i]->line, p->v[i]->col);
				fk_log(FK_LOG_ERROR, "%s:%u:%u: %s", name, n->line, n->col, msg);
				return FK_ERR_USAGE;
			}
	}
	return ynode_push(p, n) < 0 ? nomem() : 0;
}

int fk_yt_read(const char *name, const unsigned char *text, size_t len, struct ynode **out)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	struct ynode *stack[FK_JOB_DEPTH_MAX + 1], *doc = NULL;
	int sp = 0, docs = 0, rc = 0;
	bool done = false;

	*out = NULL;
	if (!yaml_parser_initialize(&ps))
		return nomem();
	yaml_parser_set_input_string(&ps, text, len);
	while (!done && rc == 0) {
		const char *anchor = NULL, *tag = NULL;
		struct ynode *n = NULL;
		unsigned line, col;

		if (!yaml_parser_parse(&ps, &ev)) {
			char msg[512];
			snprintf(msg, sizeof msg, "%s%s%s", ps.problem ? ps.problem : "unreadable YAML",
			         ps.context ? " " : "", ps.context ? ps.context : "");
			if (ps.error == YAML_READER_ERROR) {
				/* encoding errors carry a byte offset, not a mark */
				yaml_mark_t m = { 0, 0, 0 };
				for (size_t i = 0; i < ps.problem_offset && i < len; i++, m.column++)
					if (text[i] == '\n') {
						m.line++;
						m.column = (size_t)-1;
					}
				rc = mark_err(name, &m, "YAML syntax error: %s", msg);
			} else {
				rc = mark_err(name, ps.problem ? &ps.problem_mark : &ps.mark,
				              "YAML syntax error: %s", msg);
			}
			break;
		}
		line = (unsigned)ev.start_mark.line + 1;
		col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				rc = mark_err(name, &ev.start_mark, "%s", "a job file holds one YAML document only");
			break;
		case YAML_ALIAS_EVENT:
			rc = mark_err(name, &ev.start_mark, "aliases (*%s) are not allowed in a job file",
			              (const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			anchor = (const char *)ev.data.scalar.anchor;
			tag = (const char *)ev.data.scalar.tag;
			if (anchor || tag)
				break;
			n = ynode_new(Y_SCALAR, line, col);
			if (!n || !(n->text = fk_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length))) {
				fk_yt_free(n);
				rc = nomem();
				break;
			}
			n->len = ev.data.scalar.length;
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			rc = attach(name, sp ? stack[sp - 1] : NULL, n, &doc);
			if (rc < 0)
				fk_yt_free(n);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (ev.type == YAML_SEQUENCE_START_EVENT) {
				anchor = (const char *)ev.data.sequence_start.anchor;
				tag = (const char *)ev.data.sequence_start.tag;
			} else {
				anchor = (const char *)ev.data.mapping_start.anchor;
				tag = (const char *)ev.data.mapping_start.tag;
			}
			if (anchor || tag)
				break;
			if (sp == FK_JOB_DEPTH_MAX) {
				char d[16];
				snprintf(d, sizeof d, "%d", FK_JOB_DEPTH_MAX);
				rc = mark_err(name, &ev.start_mark, "nesting deeper than %s levels", d);
				break;
			}
			n = ynode_new(ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP, line, col);
			if (!n) {
				rc = nomem();
				break;
			}
			rc = attach(name, sp ? stack[sp - 1] : NULL, n, &doc);
			if (rc < 0)
				fk_yt_free(n);
			else
				stack[sp++] = n;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			sp--;
			break;
		default:
			break;
		}
		if (rc == 0 && anchor)
			rc = mark_err(name, &ev.start_mark, "anchors (&%s) are not allowed in a job file", anchor);
		else if (rc == 0 && tag)
			rc = mark_err(name, &ev.start_mark, "YAML tags (%s) are not allowed in a job file", tag);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	if (rc < 0) {
		fk_yt_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

/* ---- --set ------------------------------------------------------------------------- */

static bool is_index(const char *s, size_t n)
{
	if (n == 0 || n > 9)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static struct ynode *set_node(int type, const char *origin, const char *text, size_t len)
{
	struct ynode *n = ynode_new(type, 0, 0);
	if (!n)
		return NULL;
	n->origin = origin;
	if (type == Y_SCALAR) {
		n->plain = true;
		n->len = len;
		if (!(n->text = fk_strndup(text, len))) {
			fk_free(n);
			return NULL;
		}
	}
	return n;
}

int fk_yt_set(struct ynode **root, const char *set, char **origin_out)
{
	const char *eq = strchr(set, '='), *k, *value;
	char *origin;
	struct ynode *cur;

	*origin_out = NULL;
	if (!eq || eq == set) {
		fk_log(FK_LOG_ERROR, "--set %s: give KEY=VALUE, e.g. outputs.0.options.title=Foo", set);
		return FK_ERR_USAGE;
	}
	{
		/* The file's tree stops at FK_JOB_DEPTH_MAX levels; so does a key,
		 * or a long dotted key would nest deeper than anything the
		 * recursive walks (freeing, args) were meant to see. */
		size_t depth = 1;
		for (k = set; k < eq; k++)
			depth += *k == '.';
		if (depth > FK_JOB_DEPTH_MAX) {
			fk_log(FK_LOG_ERROR, "--set %.40s...: the key has %zu components, more than %d",
			       set, depth, FK_JOB_DEPTH_MAX);
			return FK_ERR_USAGE;
		}
	}
	origin = fk_malloc((size_t)(eq - set) + 8);
	if (!(*origin_out = origin))
		return nomem();
	sprintf(origin, "--set %.*s", (int)(eq - set), set);
	value = eq + 1;
	/* An empty job (no document, or a lone "~") takes --set keys as a
	 * mapping would. */
	if (*root && fk_yt_is_null(*root)) {
		fk_yt_free(*root);
		*root = NULL;
	}
	if (!*root && !(*root = set_node(Y_MAP, origin, NULL, 0)))
		return nomem();
	cur = *root;
	for (k = set; k < eq;) {
		const char *dot = memchr(k, '.', (size_t)(eq - k));
		size_t n = dot ? (size_t)(dot - k) : (size_t)(eq - k);
		bool last = !dot;
		struct ynode **slot = NULL, *nn;

		if (n == 0) {
			fk_log(FK_LOG_ERROR, "%s: empty key component", origin);
			return FK_ERR_USAGE;
		}
		if (cur->type == Y_MAP) {
			for (size_t i = 0; i + 1 < cur->n; i += 2)
				if (cur->v[i]->len == n && memcmp(cur->v[i]->text, k, n) == 0)
					slot = &cur->v[i + 1];
			if (!slot) {
				struct ynode *key = set_node(Y_SCALAR, origin, k, n);
				if (!key || ynode_push(cur, key) < 0 || ynode_push(cur, NULL) < 0) {
					if (key && (cur->n == 0 || cur->v[cur->n - 1] != key))
						fk_yt_free(key);
					return nomem();
				}
				slot = &cur->v[cur->n - 1];
			}
		} else if (cur->type == Y_SEQ) {
			size_t idx;
			if (!is_index(k, n)) {
				if (k == set)
					fk_log(FK_LOG_ERROR, "%s: the job is a list, not a mapping", origin);
				else
					fk_log(FK_LOG_ERROR, "%s: '%.*s' is a list, indexed by numbers from 0, not '%.*s'",
					       origin, (int)(k - set - 1), set, (int)n, k);
				return FK_ERR_USAGE;
			}
			idx = (size_t)strtoul(k, NULL, 10);
			if (idx > cur->n) {
				fk_log(FK_LOG_ERROR, "%s: index %zu is past the end of '%.*s' (it has %zu items)",
				       origin, idx, (int)(k - set - 1), set, cur->n);
				return FK_ERR_USAGE;
			}
			if (idx == cur->n && ynode_push(cur, NULL) < 0)
				return nomem();
			slot = &cur->v[idx];
		} else if (k == set) {
			fk_log(FK_LOG_ERROR, "%s: the job is a single value, not a mapping", origin);
			return FK_ERR_USAGE;
		} else {
			fk_log(FK_LOG_ERROR, "%s: '%.*s' is a single value, it has no '%.*s'", origin,
			       (int)(k - set - 1), set, (int)n, k);
			return FK_ERR_USAGE;
		}
		if (last) {
			nn = set_node(Y_SCALAR, origin, value, strlen(value));
			if (!nn)
				return nomem();
			fk_yt_free(*slot);
			*slot = nn;
			break;
		}
		if (!*slot) {
			const char *next = dot + 1;
			const char *nd = memchr(next, '.', (size_t)(eq - next));
			size_t nl = nd ? (size_t)(nd - next) : (size_t)(eq - next);
			if (!(*slot = set_node(is_index(next, nl) ? Y_SEQ : Y_MAP, origin, NULL, 0)))
				return nomem();
		}
		cur = *slot;
		k = dot + 1;
	}
	return 0;
}

int fk_yt_read_file(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct fk_buf b = { 0 };
	char chunk[65536];
	struct stat st;
	size_t r;

	if (!f) {
		fk_log(FK_LOG_ERROR, "%s: cannot open: %s", path, strerror(errno));
		return FK_ERR_IO;
	}
	/* fopen accepts a directory and fread then fails with a bare EISDIR;
	 * say what is wrong instead. */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		fk_log(FK_LOG_ERROR, "%s: is a directory, not a job file", path);
		return FK_ERR_IO;
	}
	/* A cap, so that /dev/zero or a runaway pipe fails instead of eating
	 * all memory; real job files are a few hundred bytes. */
	while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + r > FK_JOB_SIZE_MAX) {
			fclose(f);
			fk_buf_free(&b);
			fk_log(FK_LOG_ERROR, "%s: larger than %d MiB, too large for a job file", path,
			       FK_JOB_SIZE_MAX >> 20);
			return FK_ERR_USAGE;
		}
		if (fk_buf_append(&b, chunk, r) < 0) {
			fclose(f);
			fk_buf_free(&b);
			return nomem();
		}
	}
	if (ferror(f)) {
		fk_log(FK_LOG_ERROR, "%s: read error: %s", path, strerror(errno));
		fclose(f);
		fk_buf_free(&b);
		return FK_ERR_IO;
	}
	fclose(f);
	*data = b.data;
	*len = b.len;
	return 0;
}
