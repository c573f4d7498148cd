/* fusion._fastpath: the table of a Cache's entries (a hash table of
 * signature keys) and the reading of a call's inputs into a key (Note [C
 * fast path] in python/fusion/runtime.py; fastpath.c has the rest). */
#include "fastpath.h"

void entry_release(Entry *e) {
  if (--e->refs > 0)
    return;
  for (Py_ssize_t o = 0; e->outputs && o < e->num_outputs; ++o) {
    OutputSpec *s = &e->outputs[o];
    Py_XDECREF(s->shape);
    Py_XDECREF(s->strides);
    Py_XDECREF(s->args);
    Py_XDECREF(s->kwargs);
  }
  Py_XDECREF(e->device_index_obj);
  Py_XDECREF(e->owner);
  Py_XDECREF(e->tag);
  PyMem_Free(e->outputs);
  PyMem_Free(e->key);
  PyMem_Free(e->records);
  PyMem_Free(e->out_records);
  PyMem_Free(e);
}

void cache_clear_entries(Cache *c) {
  for (size_t b = 0; b < c->num_buckets; ++b) {
    Entry *e = c->buckets[b];
    c->buckets[b] = NULL;
    while (e) {
      Entry *next = e->next;
      entry_release(e);
      e = next;
    }
  }
  c->count = 0;
}

Entry *cache_find(Cache *c, const int64_t *key, Py_ssize_t len, uint64_t hash) {
  for (Entry *e = c->buckets[hash & (c->num_buckets - 1)]; e; e = e->next)
    if (e->hash == hash && e->key_len == len &&
        memcmp(e->key, key, (size_t)len * sizeof(int64_t)) == 0)
      return e;
  return NULL;
}

/* Grows the table to keep chains short; on allocation failure keeps the old
 * one (longer chains, still correct). */
static void cache_maybe_grow(Cache *c) {
  if (c->count < c->num_buckets)
    return;
  size_t n = c->num_buckets * 2;
  Entry **buckets = PyMem_Calloc(n, sizeof(Entry *));
  if (!buckets)
    return;
  for (size_t b = 0; b < c->num_buckets; ++b) {
    Entry *e = c->buckets[b];
    while (e) {
      Entry *next = e->next;
      e->next = buckets[e->hash & (n - 1)];
      buckets[e->hash & (n - 1)] = e;
      e = next;
    }
  }
  PyMem_Free(c->buckets);
  c->buckets = buckets;
  c->num_buckets = n;
}

void cache_insert(Cache *c, Entry *e) {
  Entry **slot = &c->buckets[e->hash & (c->num_buckets - 1)];
  for (Entry **p = slot; *p; p = &(*p)->next) {
    Entry *old = *p;
    if (old->hash == e->hash && old->key_len == e->key_len &&
        memcmp(old->key, e->key, (size_t)e->key_len * sizeof(int64_t)) == 0) {
      e->next = old->next;
      *p = e;
      entry_release(old);
      return;
    }
  }
  if (c->count >= c->max_entries) {
    cache_clear_entries(c);
    slot = &c->buckets[e->hash & (c->num_buckets - 1)];
  }
  e->next = *slot;
  *slot = e;
  ++c->count;
  cache_maybe_grow(c);
}

/* Reading inputs. */

/* Reads an int attribute result; 0 with an exception set on failure. */
int read_int64(PyObject *obj, int64_t *out) {
  if (!obj)
    return 0;
  long long v = PyLong_AsLongLong(obj);
  Py_DECREF(obj);
  if (v == -1 && PyErr_Occurred())
    return 0;
  *out = (int64_t)v;
  return 1;
}

int read_pointer(PyObject *obj, void **out) {
  if (!obj)
    return 0;
  void *p = PyLong_AsVoidPtr(obj);
  Py_DECREF(obj);
  if (!p && PyErr_Occurred())
    return 0;
  *out = p;
  return 1;
}

/* dtype, rank, sizes and strides of a tensor into `words` (dtype, rank,
 * sizes..., strides...); 0 (error set) when it has no such attributes, an
 * unknown dtype (the code is -1 when `unknown_ok`), or a rank above 8. */
int read_layout(Cache *c, PyObject *x, int64_t *words, int unknown_ok) {
  PyObject *dtype = PyObject_GetAttr(x, str_dtype);
  if (!dtype)
    return 0;
  PyObject *code = PyDict_GetItemWithError(c->dtype_codes, dtype);
  Py_DECREF(dtype);
  if (code) {
    if (!read_int64((Py_INCREF(code), code), &words[0]))
      return 0;
  } else if (PyErr_Occurred() || !unknown_ok) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "unknown dtype");
    return 0;
  } else {
    words[0] = -1;
  }
  PyObject *shape = PyObject_GetAttr(x, str_shape);
  if (!shape)
    return 0;
  PyObject *strides = PyObject_CallMethodObjArgs(x, str_stride, NULL);
  int ok = 0;
  if (strides && PyTuple_Check(shape) && PyTuple_Check(strides)) {
    Py_ssize_t rank = PyTuple_Size(shape);
    if (rank <= FUSION_MAX_RANK && PyTuple_Size(strides) == rank) {
      words[1] = rank;
      ok = 1;
      for (Py_ssize_t d = 0; ok && d < rank; ++d) {
        PyObject *s = PyTuple_GetItem(shape, d);
        PyObject *t = PyTuple_GetItem(strides, d);
        Py_XINCREF(s);
        Py_XINCREF(t);
        ok =
            read_int64(s, &words[2 + d]) && read_int64(t, &words[2 + rank + d]);
        if (!ok && !PyErr_Occurred())
          PyErr_SetString(PyExc_TypeError, "bad shape");
      }
    }
  }
  Py_DECREF(shape);
  Py_XDECREF(strides);
  if (!ok && !PyErr_Occurred())
    PyErr_SetString(PyExc_TypeError, "not a tensor layout");
  return ok;
}

/* The signature key of `inputs` into `key` (its length into *len), with the
 * tensors' data pointers into `ptrs` and the scalars' values into
 * `ivals`/`dvals`. 1: keyed; 0: not keyable here (no exception set);
 * -1: an exception that must propagate (MemoryError and the like are
 * cleared too: the Python path meets them again). */
int make_key(Cache *c, PyObject *inputs, int64_t *key, Py_ssize_t *len,
             void **ptrs, int64_t *ivals, double *dvals) {
  Py_ssize_t n = c->num_inputs, k = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *x = PySequence_GetItem(inputs, i);
    if (!x)
      goto fail;
    if (c->codes[i] == CODE_TENSOR) {
      int64_t *w = &key[k];
      /* w[0] device, then dtype, rank, sizes, strides. */
      if (!read_layout(c, x, &w[1], 0) ||
          !read_int64(PyObject_CallMethodObjArgs(x, str_get_device, NULL),
                      &w[0]) ||
          !read_pointer(PyObject_CallMethodObjArgs(x, str_data_ptr, NULL),
                        &ptrs[i])) {
        Py_DECREF(x);
        goto fail;
      }
      k += 3 + 2 * w[2];
      ivals[i] = 0;
      dvals[i] = 0;
    } else {
      int64_t tag, value;
      ptrs[i] = NULL;
      if (PyBool_Check(x)) {
        tag = TAG_BOOL;
        ivals[i] = value = x == Py_True;
        dvals[i] = (double)ivals[i];
      } else if (PyLong_CheckExact(x)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
          Py_DECREF(x);
          goto fail;
        }
        tag = TAG_INT;
        ivals[i] = value = (int64_t)v;
        dvals[i] = (double)v;
      } else if (PyFloat_CheckExact(x)) {
        tag = TAG_FLOAT;
        dvals[i] = PyFloat_AsDouble(x);
        ivals[i] = 0;
        memcpy(&value, &dvals[i], sizeof value);
      } else {
        Py_DECREF(x);
        goto fail;
      }
      key[k++] = tag;
      if (c->codes[i] == CODE_SCALAR_VALUE)
        key[k++] = value;
    }
    Py_DECREF(x);
  }
  *len = k;
  return 1;
fail:
  PyErr_Clear();
  return 0;
}
