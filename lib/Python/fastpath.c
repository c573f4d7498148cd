/* fusion._fastpath: the C fast path of the Python binding (Note [C fast
 * path] in python/fusion/runtime.py).
 *
 * A `Cache` maps input signatures to what a call with that signature needs:
 * the runtime handle and fusion_executable_run_packed (function pointers
 * handed over from ctypes, so there is one loaded libfusion_runtime.so), the
 * packed input and output records, and how to allocate every output. Python
 * binds a signature the first time (runtime.Executable._bind: every check,
 * every error message) and adds it here; a later call with that signature
 * reads each tensor's dtype, shape, strides, device and data pointer, finds
 * the entry, allocates the outputs, and makes one C call. Anything this code
 * does not recognise (an unknown dtype, a non-tensor, a signature not bound
 * yet, another current device) returns None, and Python takes its own path,
 * which raises the same errors as before. Only failures of the runtime
 * itself are raised from here, as FusionError(code, name, message).
 *
 * Tensors are read through generic attributes (`dtype`, `shape`, `stride()`,
 * `get_device()`, `data_ptr()`, `as_strided()`), so the CPU tests drive this
 * code with fake tensors. Built against the stable ABI (Py_LIMITED_API
 * 3.11): one _fastpath.abi3.so loads in CPython 3.11 and later. */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "fusion/Runtime/fusion_runtime.h"

/* Bumped when the Python side must change with this file. */
#define FASTPATH_VERSION 2

/* Words of a signature key per tensor input: device, dtype, rank, sizes,
 * strides. */
#define TENSOR_KEY_WORDS (3 + 2 * FUSION_MAX_RANK)
/* Per call scratch that fits on the stack (int64 words). */
#define STACK_WORDS 1024

typedef int (*run_packed_fn)(fusion_executable *, void *const *,
                             const int64_t *, size_t, void **, const int64_t *,
                             size_t, void *);
typedef const char *(*error_message_fn)(void);
/* cuCtxGetCurrent (CUresult cuCtxGetCurrent(CUcontext *)). */
typedef int (*current_context_fn)(void **);
typedef const char *(*error_name_fn)(int);

/* Key codes per input slot (runtime.make_key). */
enum { CODE_TENSOR = 0, CODE_SCALAR_TYPE = 1, CODE_SCALAR_VALUE = 2 };
/* Scalar type tags in a key. */
enum { TAG_BOOL = 1, TAG_INT = 2, TAG_FLOAT = 3 };

static PyObject *str_dtype, *str_shape, *str_stride, *str_get_device,
    *str_data_ptr, *str_as_strided, *str_device, *str_last_execution,
    *str_current_device, *str_raw_stream, *str_empty, *str_empty_strided;

/* Entries. */

typedef struct {
  Py_ssize_t alias; /* input index of a view output, or -1 */
  PyObject *shape;  /* tuple */
  PyObject *strides;
  PyObject *args;   /* (shape,) or (shape, strides); NULL for views */
  PyObject *kwargs; /* {"dtype": ..., "device": ...}; NULL for views */
  int contiguous;
  /* An input of the same dtype and shape, contiguous: the output is
   * allocated with empty_like(input) (Note [Outputs like an input]), or -1. */
  Py_ssize_t like;
} OutputSpec;

typedef struct Entry {
  struct Entry *next; /* hash chain */
  Py_ssize_t refs;    /* the table's and in-flight calls' (under the GIL) */
  uint64_t hash;
  Py_ssize_t key_len;
  int64_t *key;
  void *handle;
  run_packed_fn run;
  Py_ssize_t num_inputs, num_outputs;
  int64_t *records;     /* num_inputs * FUSION_PACKED_WORDS */
  int64_t *out_records; /* num_outputs * FUSION_PACKED_WORDS */
  long device_index;
  PyObject *device_index_obj;
  OutputSpec *outputs;
  /* The CUDA context current when the entry was added on its device, or
   * NULL (Note [Context check]). */
  void *context;
  PyObject *owner; /* kept alive with the entry (the Executable), or NULL */
  PyObject *tag;   /* set as target.last_execution on a hit, or NULL */
} Entry;

static void entry_release(Entry *e) {
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

/* The Cache type. */

typedef struct {
  PyObject_HEAD Py_ssize_t num_inputs;
  unsigned char *codes;
  PyObject *dtype_codes; /* dict: dtype object -> FUSION_DTYPE_* */
  PyObject *current_device, *raw_stream, *empty, *empty_strided;
  /* Optional: empty_like and the exact tensor type it is used for (Note
   * [Outputs like an input]), or NULL. */
  PyObject *empty_like, *tensor_type;
  PyObject *error_type;
  error_message_fn error_message;
  error_name_fn error_name;
  current_context_fn current_context; /* or NULL */
  Entry **buckets;
  size_t num_buckets, count, max_entries;
  uint64_t hits, misses;
} Cache;

static uint64_t hash_words(const int64_t *w, Py_ssize_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (Py_ssize_t i = 0; i < n; ++i) {
    h ^= (uint64_t)w[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

static void cache_clear_entries(Cache *c) {
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

static Entry *cache_find(Cache *c, const int64_t *key, Py_ssize_t len,
                         uint64_t hash) {
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

static void cache_insert(Cache *c, Entry *e) {
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
static int read_int64(PyObject *obj, int64_t *out) {
  if (!obj)
    return 0;
  long long v = PyLong_AsLongLong(obj);
  Py_DECREF(obj);
  if (v == -1 && PyErr_Occurred())
    return 0;
  *out = (int64_t)v;
  return 1;
}

static int read_pointer(PyObject *obj, void **out) {
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
static int read_layout(Cache *c, PyObject *x, int64_t *words, int unknown_ok) {
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
static int make_key(Cache *c, PyObject *inputs, int64_t *key, Py_ssize_t *len,
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

/* Scratch memory. */

typedef struct {
  int64_t stack[STACK_WORDS];
  int64_t *heap;
} Scratch;

static int64_t *scratch_get(Scratch *s, size_t words) {
  s->heap = NULL;
  if (words <= STACK_WORDS)
    return s->stack;
  s->heap = PyMem_Malloc(words * sizeof(int64_t));
  if (!s->heap)
    PyErr_NoMemory();
  return s->heap;
}

/* Cache methods. */

static PyObject *raise_runtime_error(Cache *c, int code) {
  const char *name = c->error_name ? c->error_name(code) : NULL;
  const char *message = c->error_message ? c->error_message() : NULL;
  PyObject *py_name = PyUnicode_DecodeUTF8(
      name ? name : "Unknown", (Py_ssize_t)strlen(name ? name : "Unknown"),
      "replace");
  PyObject *py_message = PyUnicode_DecodeUTF8(
      message ? message : "", (Py_ssize_t)strlen(message ? message : ""),
      "replace");
  PyObject *py_code = PyLong_FromLong(code);
  if (py_name && py_message && py_code) {
    PyObject *args = PyTuple_Pack(3, py_code, py_name, py_message);
    if (args) {
      PyObject *exc = PyObject_Call(c->error_type, args, NULL);
      Py_DECREF(args);
      if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
      }
    }
  }
  Py_XDECREF(py_name);
  Py_XDECREF(py_message);
  Py_XDECREF(py_code);
  return NULL;
}

static int is_float_dtype(int64_t code) {
  return code == FUSION_DTYPE_F64 || code == FUSION_DTYPE_F32 ||
         code == FUSION_DTYPE_F16 || code == FUSION_DTYPE_BF16 ||
         code == FUSION_DTYPE_F8E4M3 || code == FUSION_DTYPE_F8E5M2;
}

/* Words of per-call scratch for n inputs and m outputs: key, input records,
 * output records, pointers and scalar values. */
static size_t scratch_words(Py_ssize_t n, Py_ssize_t m) {
  return (size_t)n * (TENSOR_KEY_WORDS + FUSION_PACKED_WORDS + 3) +
         (size_t)m * (FUSION_PACKED_WORDS + 1) + 4;
}

PyDoc_STRVAR(cache_call_doc,
             "call(inputs, outputs, stream, target) -> list, outputs or None\n"
             "\n"
             "Runs on `inputs` (a tuple or list) when their signature was "
             "added: into\n`outputs` (a sequence of tensors, returned) or, "
             "when it is None, into new\noutputs (a list, returned). "
             "`stream`: an int (a CUstream) or None for\nthe backend's "
             "current stream. `target`: None, or an object whose\n"
             "`last_execution` is set to the entry's tag. None when the "
             "inputs are\nnot handled here (not added, not keyable, another "
             "current device, a\nwrong number of outputs): take the Python "
             "path. Raises FusionError\nwhen the runtime fails; nothing is "
             "launched or returned then.");

static PyObject *cache_call(Cache *c, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 1 || nargs > 4) {
    PyErr_SetString(PyExc_TypeError, "call() takes 1 to 4 arguments");
    return NULL;
  }
  PyObject *inputs = args[0];
  PyObject *outputs = nargs > 1 && args[1] != Py_None ? args[1] : NULL;
  PyObject *stream_arg = nargs > 2 && args[2] != Py_None ? args[2] : NULL;
  PyObject *target = nargs > 3 && args[3] != Py_None ? args[3] : NULL;
  Py_ssize_t n = c->num_inputs;
  if (!(PyTuple_Check(inputs) || PyList_Check(inputs)) ||
      PySequence_Size(inputs) != n) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  /* The largest number of outputs of any entry is not known before the
   * lookup; size the scratch for the key and inputs first. */
  Scratch scratch;
  int64_t *mem = scratch_get(&scratch, scratch_words(n, 0));
  if (!mem)
    return NULL;
  int64_t *key = mem;
  void **ptrs = (void **)(key + n * TENSOR_KEY_WORDS);
  int64_t *ivals = (int64_t *)(ptrs + n);
  double *dvals = (double *)(ivals + n);
  Py_ssize_t key_len = 0;
  if (!make_key(c, inputs, key, &key_len, ptrs, ivals, dvals)) {
    PyMem_Free(scratch.heap);
    Py_RETURN_NONE;
  }
  Entry *e = cache_find(c, key, key_len, hash_words(key, key_len));
  if (!e) {
    ++c->misses;
    PyMem_Free(scratch.heap);
    Py_RETURN_NONE;
  }
  ++e->refs; /* the table may drop it while Python code runs below */
  PyObject *result = NULL, *new_outputs = NULL;
  Py_ssize_t m = e->num_outputs;

  /* Per-call records: the entry's template with this call's scalars. */
  Scratch scratch2;
  int64_t *mem2 = scratch_get(&scratch2, (size_t)(n + m) * FUSION_PACKED_WORDS +
                                             (size_t)m + 1);
  if (!mem2)
    goto done;
  int64_t *records = mem2;
  int64_t *out_records = records + n * FUSION_PACKED_WORDS;
  void **out_data = (void **)(out_records + m * FUSION_PACKED_WORDS);
  if (n)
    memcpy(records, e->records,
           (size_t)n * FUSION_PACKED_WORDS * sizeof(int64_t));
  for (Py_ssize_t i = 0; i < n; ++i) {
    int64_t *r = &records[i * FUSION_PACKED_WORDS];
    if (r[FUSION_PACKED_KIND] != FUSION_ARG_SCALAR)
      continue;
    if (is_float_dtype(r[FUSION_PACKED_DTYPE]))
      memcpy(&r[FUSION_PACKED_VALUE], &dvals[i], sizeof(double));
    else
      r[FUSION_PACKED_VALUE] = ivals[i];
  }

  /* The device: as runtime.Executable.launch, another current device is
   * handled in Python (with a device guard). Note [Context check]: the
   * backend's current_device() costs ~0.3 us per call with torch; when the
   * CUDA context current now is the one that was current on the entry's
   * device when it was added, that device is still current (a context
   * belongs to one device), so the driver is asked instead (~20 ns). */
  int device_ok = 0;
  if (c->current_context && e->context) {
    void *context = NULL;
    device_ok = c->current_context(&context) == 0 && context == e->context;
  }
  if (!device_ok) {
    int64_t current = 0;
    if (!read_int64(PyObject_CallNoArgs(c->current_device), &current))
      goto done;
    if (current != e->device_index) {
      result = Py_None;
      Py_INCREF(result);
      goto done;
    }
  }
  void *stream = NULL;
  if (stream_arg) {
    if (!PyLong_Check(stream_arg)) {
      result = Py_None; /* ctypes' conversion in Python explains */
      Py_INCREF(result);
      goto done;
    }
    if (!read_pointer((Py_INCREF(stream_arg), stream_arg), &stream))
      goto done;
  } else if (!read_pointer(PyObject_CallFunctionObjArgs(
                               c->raw_stream, e->device_index_obj, NULL),
                           &stream)) {
    goto done;
  }

  const int64_t *out_records_arg = e->out_records;
  if (outputs) {
    /* Provided outputs: their layout is checked by the runtime. */
    if (!(PyTuple_Check(outputs) || PyList_Check(outputs)) ||
        PySequence_Size(outputs) != m) {
      PyErr_Clear();
      result = Py_None;
      Py_INCREF(result);
      goto done;
    }
    memset(out_records, 0, (size_t)m * FUSION_PACKED_WORDS * sizeof(int64_t));
    for (Py_ssize_t o = 0; o < m; ++o) {
      int64_t *r = &out_records[o * FUSION_PACKED_WORDS];
      int64_t w[1 + 2 * FUSION_MAX_RANK + 1];
      PyObject *t = PySequence_GetItem(outputs, o);
      int ok = t && read_layout(c, t, w, 1) &&
               read_pointer(PyObject_CallMethodObjArgs(t, str_data_ptr, NULL),
                            &out_data[o]);
      Py_XDECREF(t);
      if (!ok) {
        PyErr_Clear();
        result = Py_None;
        Py_INCREF(result);
        goto done;
      }
      r[FUSION_PACKED_DTYPE] = w[0];
      r[FUSION_PACKED_RANK] = w[1];
      for (int64_t d = 0; d < w[1]; ++d) {
        r[FUSION_PACKED_SIZES + d] = w[2 + d];
        r[FUSION_PACKED_STRIDES + d] = w[2 + w[1] + d];
      }
    }
    out_records_arg = out_records;
  } else {
    new_outputs = PyList_New(m);
    if (!new_outputs)
      goto done;
    for (Py_ssize_t o = 0; o < m; ++o) {
      OutputSpec *s = &e->outputs[o];
      PyObject *t;
      if (s->alias >= 0) {
        PyObject *src = PySequence_GetItem(inputs, s->alias);
        t = src ? PyObject_CallMethodObjArgs(src, str_as_strided, s->shape,
                                             s->strides, NULL)
                : NULL;
        Py_XDECREF(src);
        out_data[o] = NULL; /* the runtime passes the input's pointer */
      } else {
        PyObject *like =
            s->like >= 0 ? PySequence_GetItem(inputs, s->like) : NULL;
        if (like && (PyObject *)Py_TYPE(like) == c->tensor_type)
          t = PyObject_CallFunctionObjArgs(c->empty_like, like, NULL);
        else
          t = PyObject_Call(s->contiguous ? c->empty : c->empty_strided,
                            s->args, s->kwargs);
        Py_XDECREF(like);
        if (t &&
            !read_pointer(PyObject_CallMethodObjArgs(t, str_data_ptr, NULL),
                          &out_data[o])) {
          Py_DECREF(t);
          t = NULL;
        }
      }
      if (!t)
        goto done;
      PyList_SetItem(new_outputs, o, t);
    }
  }

  /* The GIL stays held during the launch (a few us in the driver), as
   * torch holds it for its own launches: no release and reacquire per call
   * on a path whose whole cost is a few us (Note [C execute]). A ctypes
   * callback in place of the runtime takes the GIL it already has. */
  int code = e->run((fusion_executable *)e->handle, ptrs, records, (size_t)n,
                    out_data, out_records_arg, (size_t)m, stream);
  if (code != 0) {
    raise_runtime_error(c, code);
    goto done;
  }
  ++c->hits;
  if (target && e->tag &&
      PyObject_SetAttr(target, str_last_execution, e->tag) < 0)
    goto done;
  if (outputs) {
    result = outputs;
    Py_INCREF(result);
  } else {
    result = new_outputs;
    new_outputs = NULL;
  }

done:
  Py_XDECREF(new_outputs);
  entry_release(e);
  PyMem_Free(scratch.heap);
  PyMem_Free(scratch2.heap);
  return result;
}

/* Note [Outputs like an input]: torch.empty(shape, dtype=, device=) parses
 * its arguments on every call (about 3-6 us on the GPU machine), while
 * torch.empty_like(x) takes one tensor (about 2 us). An output whose dtype
 * and shape are an input's, when that input has contiguous strides in this
 * signature (the key fixes them) and is exactly of the backend's tensor type
 * (a subclass could return something else), is allocated with
 * empty_like(input): same dtype, shape, device and, for a contiguous input,
 * contiguous strides. Size-1 dims must have the standard strides too, since
 * empty_like copies the strides of a dense input. */
static Py_ssize_t like_input(const Entry *e, Py_ssize_t o) {
  const int64_t *out = &e->out_records[o * FUSION_PACKED_WORDS];
  int64_t rank = out[FUSION_PACKED_RANK];
  for (Py_ssize_t i = 0; i < e->num_inputs; ++i) {
    const int64_t *in = &e->records[i * FUSION_PACKED_WORDS];
    if (in[FUSION_PACKED_KIND] != FUSION_ARG_TENSOR ||
        in[FUSION_PACKED_DTYPE] != out[FUSION_PACKED_DTYPE] ||
        in[FUSION_PACKED_RANK] != rank)
      continue;
    int match = 1;
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0 && match; --d) {
      match = in[FUSION_PACKED_SIZES + d] == out[FUSION_PACKED_SIZES + d] &&
              in[FUSION_PACKED_STRIDES + d] == stride &&
              out[FUSION_PACKED_STRIDES + d] == stride;
      stride *= in[FUSION_PACKED_SIZES + d];
    }
    if (match)
      return i;
  }
  return -1;
}

PyDoc_STRVAR(
    cache_add_doc,
    "add(inputs, handle, run, records, out_records, device, device_index,\n"
    "    outputs, owner, tag) -> bool\n"
    "\n"
    "Adds the signature of `inputs`, bound by Python: `handle` (the\n"
    "fusion_executable*) and `run` (fusion_executable_run_packed) as ints,\n"
    "`records` and `out_records` the packed records (bytes), `device` what\n"
    "the backend's empty() takes, `device_index` its index, `outputs` the\n"
    "(alias, shape, strides, dtype, contiguous) of each output. `owner` is\n"
    "kept alive with the entry; `tag` is set as target.last_execution on a\n"
    "hit. False when the inputs cannot be keyed here (the Python path then\n"
    "serves them).");

static PyObject *cache_add(Cache *c, PyObject *args) {
  PyObject *inputs, *handle_obj, *run_obj, *records, *out_records, *device,
      *outputs, *owner, *tag;
  long device_index;
  if (!PyArg_ParseTuple(args, "OOOSSOlOOO:add", &inputs, &handle_obj, &run_obj,
                        &records, &out_records, &device, &device_index,
                        &outputs, &owner, &tag))
    return NULL;
  Py_ssize_t n = c->num_inputs;
  void *handle = PyLong_AsVoidPtr(handle_obj);
  if (!handle && PyErr_Occurred())
    return NULL;
  void *run = PyLong_AsVoidPtr(run_obj);
  if (!run) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "add: null run function");
    return NULL;
  }
  if (!(PyTuple_Check(inputs) || PyList_Check(inputs)) ||
      PySequence_Size(inputs) != n)
    Py_RETURN_FALSE;
  PyObject *outs = PySequence_Tuple(outputs);
  if (!outs)
    return NULL;
  Py_ssize_t m = PyTuple_Size(outs);
  if (PyBytes_Size(records) !=
          (Py_ssize_t)(n * FUSION_PACKED_WORDS * sizeof(int64_t)) ||
      PyBytes_Size(out_records) !=
          (Py_ssize_t)(m * FUSION_PACKED_WORDS * sizeof(int64_t))) {
    Py_DECREF(outs);
    PyErr_SetString(PyExc_ValueError,
                    "add: records do not match the inputs and outputs");
    return NULL;
  }
  Scratch scratch;
  int64_t *mem = scratch_get(&scratch, scratch_words(n, 0));
  if (!mem) {
    Py_DECREF(outs);
    return NULL;
  }
  int64_t *key = mem;
  void **ptrs = (void **)(key + n * TENSOR_KEY_WORDS);
  int64_t *ivals = (int64_t *)(ptrs + n);
  double *dvals = (double *)(ivals + n);
  Py_ssize_t key_len = 0;
  if (!make_key(c, inputs, key, &key_len, ptrs, ivals, dvals)) {
    PyMem_Free(scratch.heap);
    Py_DECREF(outs);
    Py_RETURN_FALSE;
  }

  Entry *e = PyMem_Calloc(1, sizeof(Entry));
  if (!e) {
    PyMem_Free(scratch.heap);
    Py_DECREF(outs);
    return PyErr_NoMemory();
  }
  e->refs = 1;
  e->num_inputs = n;
  e->num_outputs = m;
  e->key_len = key_len;
  e->hash = hash_words(key, key_len);
  e->key = PyMem_Malloc((size_t)(key_len ? key_len : 1) * sizeof(int64_t));
  e->records =
      PyMem_Malloc((size_t)(n ? n : 1) * FUSION_PACKED_WORDS * sizeof(int64_t));
  e->out_records =
      PyMem_Malloc((size_t)(m ? m : 1) * FUSION_PACKED_WORDS * sizeof(int64_t));
  e->outputs = PyMem_Calloc((size_t)(m ? m : 1), sizeof(OutputSpec));
  int ok = e->key && e->records && e->out_records && e->outputs;
  if (!ok)
    PyErr_NoMemory();
  if (ok) {
    memcpy(e->key, key, (size_t)key_len * sizeof(int64_t));
    memcpy(e->records, PyBytes_AsString(records),
           (size_t)PyBytes_Size(records));
    memcpy(e->out_records, PyBytes_AsString(out_records),
           (size_t)PyBytes_Size(out_records));
    e->handle = handle;
    e->run = (run_packed_fn)run;
    e->device_index = device_index;
    e->device_index_obj = PyLong_FromLong(device_index);
    /* The context, only while the entry's device is current (Note
     * [Context check]). */
    if (c->current_context) {
      int64_t current = -1;
      void *context = NULL;
      if (!read_int64(PyObject_CallNoArgs(c->current_device), &current))
        PyErr_Clear();
      else if (current == device_index && c->current_context(&context) == 0)
        e->context = context;
    }
    e->owner = owner == Py_None ? NULL : (Py_INCREF(owner), owner);
    e->tag = tag == Py_None ? NULL : (Py_INCREF(tag), tag);
    ok = e->device_index_obj != NULL;
  }
  for (Py_ssize_t o = 0; ok && o < m; ++o) {
    OutputSpec *s = &e->outputs[o];
    PyObject *spec = PyTuple_GetItem(outs, o);
    PyObject *alias, *shape, *strides, *dtype, *contiguous;
    if (!PyArg_ParseTuple(spec, "OOOOO:output spec", &alias, &shape, &strides,
                          &dtype, &contiguous)) {
      ok = 0;
      break;
    }
    s->alias = PyLong_AsSsize_t(alias);
    s->like = -1;
    s->contiguous = PyObject_IsTrue(contiguous);
    if ((s->alias == -1 && PyErr_Occurred()) || s->contiguous < 0 ||
        s->alias >= n) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "add: bad output alias");
      ok = 0;
      break;
    }
    s->shape = PySequence_Tuple(shape);
    s->strides = PySequence_Tuple(strides);
    if (!s->shape || !s->strides) {
      ok = 0;
      break;
    }
    if (s->alias >= 0)
      continue;
    s->like = c->empty_like ? like_input(e, o) : -1;
    s->args = s->contiguous ? PyTuple_Pack(1, s->shape)
                            : PyTuple_Pack(2, s->shape, s->strides);
    s->kwargs = PyDict_New();
    ok = s->args && s->kwargs &&
         PyDict_SetItem(s->kwargs, str_dtype, dtype) == 0 &&
         PyDict_SetItem(s->kwargs, str_device, device) == 0;
  }
  PyMem_Free(scratch.heap);
  Py_DECREF(outs);
  if (!ok) {
    entry_release(e);
    return NULL;
  }
  cache_insert(c, e);
  Py_RETURN_TRUE;
}

static PyObject *cache_clear(Cache *c, PyObject *unused) {
  (void)unused;
  cache_clear_entries(c);
  Py_RETURN_NONE;
}

static PyObject *cache_stats(Cache *c, PyObject *unused) {
  (void)unused;
  return Py_BuildValue("{s:n,s:K,s:K}", "entries", (Py_ssize_t)c->count, "hits",
                       (unsigned long long)c->hits, "misses",
                       (unsigned long long)c->misses);
}

static PyMethodDef cache_methods[] = {
    {"call", (PyCFunction)(void (*)(void))cache_call, METH_FASTCALL,
     cache_call_doc},
    {"add", (PyCFunction)cache_add, METH_VARARGS, cache_add_doc},
    {"clear", (PyCFunction)cache_clear, METH_NOARGS, "Drops every entry."},
    {"stats", (PyCFunction)cache_stats, METH_NOARGS,
     "{'entries', 'hits', 'misses'}"},
    {NULL, NULL, 0, NULL}};

static void cache_dealloc(PyObject *self) {
  Cache *c = (Cache *)self;
  if (c->buckets)
    cache_clear_entries(c);
  PyMem_Free(c->buckets);
  PyMem_Free(c->codes);
  Py_XDECREF(c->dtype_codes);
  Py_XDECREF(c->current_device);
  Py_XDECREF(c->raw_stream);
  Py_XDECREF(c->empty);
  Py_XDECREF(c->empty_strided);
  Py_XDECREF(c->empty_like);
  Py_XDECREF(c->tensor_type);
  Py_XDECREF(c->error_type);
  PyTypeObject *type = Py_TYPE(self);
  freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_fn(self);
  Py_DECREF(type);
}

static PyObject *cache_new(PyTypeObject *type, PyObject *args,
                           PyObject *kwargs) {
  PyObject *codes, *dtype_codes, *backend, *error_type, *message_obj, *name_obj;
  Py_ssize_t max_entries = 4096;
  if (kwargs && PyDict_Size(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "Cache() takes positional arguments");
    return NULL;
  }
  if (!PyArg_ParseTuple(args, "OO!OOOO|n:Cache", &codes, &PyDict_Type,
                        &dtype_codes, &backend, &error_type, &message_obj,
                        &name_obj, &max_entries))
    return NULL;
  allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
  Cache *c = (Cache *)alloc(type, 0);
  if (!c)
    return NULL;
  PyObject *seq = PySequence_Tuple(codes);
  if (!seq)
    goto fail;
  c->num_inputs = PyTuple_Size(seq);
  c->codes = PyMem_Malloc((size_t)(c->num_inputs ? c->num_inputs : 1));
  if (!c->codes) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < c->num_inputs; ++i) {
    long v = PyLong_AsLong(PyTuple_GetItem(seq, i));
    if (v < CODE_TENSOR || v > CODE_SCALAR_VALUE) {
      Py_DECREF(seq);
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "Cache: key codes are 0, 1 or 2");
      goto fail;
    }
    c->codes[i] = (unsigned char)v;
  }
  Py_DECREF(seq);
  Py_INCREF(dtype_codes);
  c->dtype_codes = dtype_codes;
  Py_INCREF(error_type);
  c->error_type = error_type;
  if (!(c->current_device = PyObject_GetAttr(backend, str_current_device)) ||
      !(c->raw_stream = PyObject_GetAttr(backend, str_raw_stream)) ||
      !(c->empty = PyObject_GetAttr(backend, str_empty)) ||
      !(c->empty_strided = PyObject_GetAttr(backend, str_empty_strided)))
    goto fail;
  /* Optional: empty_like with the tensor type it applies to (Note [Outputs
   * like an input]). */
  c->empty_like = PyObject_GetAttrString(backend, "empty_like");
  c->tensor_type =
      c->empty_like ? PyObject_GetAttrString(backend, "tensor_type") : NULL;
  if (!c->empty_like || !c->tensor_type || c->empty_like == Py_None ||
      c->tensor_type == Py_None) {
    PyErr_Clear();
    Py_CLEAR(c->empty_like);
    Py_CLEAR(c->tensor_type);
  }
  /* Optional: the address of cuCtxGetCurrent (Note [Context check]). */
  PyObject *context_obj =
      PyObject_GetAttrString(backend, "current_context_address");
  if (!context_obj) {
    PyErr_Clear();
  } else {
    if (context_obj != Py_None)
      c->current_context = (current_context_fn)PyLong_AsVoidPtr(context_obj);
    Py_DECREF(context_obj);
    if (PyErr_Occurred())
      goto fail;
  }
  c->error_message = (error_message_fn)PyLong_AsVoidPtr(message_obj);
  c->error_name = (error_name_fn)PyLong_AsVoidPtr(name_obj);
  if (PyErr_Occurred())
    goto fail;
  c->max_entries = max_entries > 0 ? (size_t)max_entries : 1;
  c->num_buckets = 64;
  c->buckets = PyMem_Calloc(c->num_buckets, sizeof(Entry *));
  if (!c->buckets) {
    PyErr_NoMemory();
    goto fail;
  }
  return (PyObject *)c;
fail:
  Py_DECREF(c);
  return NULL;
}

/* Not PyDoc_STRVAR: Py_tp_doc takes a non-const pointer. */
static char cache_doc[] =
    "Cache(codes, dtype_codes, backend, error_type, error_message, "
    "error_name,\n      max_entries=4096)\n"
    "\n"
    "Signature -> launch entries (see the module's doc). `codes`: per "
    "input\n0 tensor, 1 scalar (its type is keyed), 2 scalar (type "
    "and value).\n`dtype_codes`: dtype object -> FUSION_DTYPE_*. "
    "`backend`: current_device(),\nraw_stream(index), empty(shape, "
    "dtype=, device=), empty_strided(...), optionally\n"
    "current_context_address (cuCtxGetCurrent's, or None).\n`error_type`: "
    "called as "
    "error_type(code, name, message) on a runtime\nfailure. "
    "`error_message`, `error_name`: addresses of\n"
    "fusion_last_error_message and fusion_error_code_name.";

static PyType_Slot cache_slots[] = {{Py_tp_new, cache_new},
                                    {Py_tp_dealloc, cache_dealloc},
                                    {Py_tp_methods, cache_methods},
                                    {Py_tp_doc, cache_doc},
                                    {0, NULL}};

static PyType_Spec cache_spec = {"fusion._fastpath.Cache", sizeof(Cache), 0,
                                 Py_TPFLAGS_DEFAULT, cache_slots};

/* Note [C execute]: `fd.execute(inputs)` costs a Python frame above
 * Cache.call (FusionDefinition.execute, reading $FUSION_DUMP, the cache's
 * attribute chain): about 0.5-1 us per call on the H200's host. Once a
 * definition has a Cache, Python stores make_execute(...) as the instance
 * attribute `execute` (it shadows the class's method): a builtin function
 * (METH_FASTCALL, no argument tuple) that, for a call with the inputs alone
 * and $FUSION_DUMP unset, goes straight to Cache.call with the definition as
 * target, and otherwise (keywords, a miss, a dump, another device) calls the
 * class's execute(fd, ...) with the same arguments. The definition is held
 * through a weak reference: it holds this function, not the other way. */

typedef struct {
  PyObject_HEAD PyObject *cache; /* a Cache */
  PyObject *target_ref;          /* weakref to the definition */
  PyObject *fallback;            /* FusionDefinition.execute */
  PyObject *environ, *dump_key;  /* os.environ's dict and its key, or NULL */
} ExecState;

static PyObject *exec_state_type; /* set by PyInit__fastpath */
static PyObject *cache_type;

static void exec_state_dealloc(PyObject *self) {
  ExecState *s = (ExecState *)self;
  Py_XDECREF(s->cache);
  Py_XDECREF(s->target_ref);
  Py_XDECREF(s->fallback);
  Py_XDECREF(s->environ);
  Py_XDECREF(s->dump_key);
  PyTypeObject *type = Py_TYPE(self);
  freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_fn(self);
  Py_DECREF(type);
}

static PyType_Slot exec_state_slots[] = {{Py_tp_dealloc, exec_state_dealloc},
                                         {0, NULL}};

static PyType_Spec exec_state_spec = {"fusion._fastpath._ExecState",
                                      sizeof(ExecState), 0, Py_TPFLAGS_DEFAULT,
                                      exec_state_slots};

/* fallback(target, *args, **kwargs) from a vectorcall argument array. */
static PyObject *exec_fallback(ExecState *s, PyObject *target,
                               PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  PyObject *tuple = PyTuple_New(nargs + 1);
  PyObject *kwargs = nkw ? PyDict_New() : NULL;
  PyObject *result = NULL;
  if (!tuple || (nkw && !kwargs))
    goto done;
  Py_INCREF(target);
  PyTuple_SetItem(tuple, 0, target);
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SetItem(tuple, i + 1, args[i]);
  }
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyDict_SetItem(kwargs, PyTuple_GetItem(kwnames, k), args[nargs + k]) <
        0)
      goto done;
  result = PyObject_Call(s->fallback, tuple, kwargs);
done:
  Py_XDECREF(tuple);
  Py_XDECREF(kwargs);
  return result;
}

static PyObject *exec_call(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargsf, PyObject *kwnames) {
  ExecState *s = (ExecState *)self;
  /* METH_FASTCALL functions get the bare count (CPython strips
   * PY_VECTORCALL_ARGUMENTS_OFFSET, which the limited API does not name);
   * masking the top bit keeps this right either way. */
  Py_ssize_t nargs =
      (Py_ssize_t)((size_t)nargsf & ~((size_t)1 << (8 * sizeof(size_t) - 1)));
  PyObject *target = PyWeakref_GetObject(s->target_ref); /* borrowed */
  if (!target)
    return NULL;
  if (target == Py_None) {
    PyErr_SetString(PyExc_ReferenceError,
                    "execute: its FusionDefinition no longer exists");
    return NULL;
  }
  Py_INCREF(target);
  PyObject *result = NULL;
  int fast = nargs == 1 && (!kwnames || PyTuple_Size(kwnames) == 0);
  if (fast && s->environ) {
    PyObject *value = PyDict_GetItemWithError(s->environ, s->dump_key);
    if (value) {
      int set = PyObject_IsTrue(value);
      if (set < 0)
        goto done;
      fast = !set;
    } else if (PyErr_Occurred()) {
      goto done;
    }
  }
  if (fast) {
    PyObject *call_args[4] = {args[0], Py_None, Py_None, target};
    result = cache_call((Cache *)s->cache, call_args, 4);
    if (result != Py_None)
      goto done; /* outputs, or NULL with an exception */
    Py_CLEAR(result);
  }
  result = exec_fallback(s, target, args, nargs, kwnames);
done:
  Py_DECREF(target);
  return result;
}

static PyMethodDef exec_def = {
    "execute", (PyCFunction)(void (*)(void))exec_call,
    METH_FASTCALL | METH_KEYWORDS,
    "execute($self, inputs, dump=None, schedule=None, device=None)\n"
    "--\n"
    "\n"
    "FusionDefinition.execute through the definition's C cache (Note [C "
    "execute]\nin lib/Python/fastpath.c); see FusionDefinition.execute."};

PyDoc_STRVAR(make_execute_doc,
             "make_execute(cache, target, fallback, environ, dump_key) -> "
             "function\n"
             "\n"
             "A builtin `execute(inputs, ...)` for the definition `target` "
             "(held weakly):\nCache.call(inputs, None, None, target) when "
             "called with the inputs alone\nand environ[dump_key] is not "
             "set, else (and when the cache returns None)\n"
             "fallback(target, *args, **kwargs). `environ`: os.environ's "
             "dict, or None\n(then $FUSION_DUMP is not checked here: the "
             "fallback checks it).");

static PyObject *make_execute(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *cache, *target, *fallback, *environ, *dump_key;
  if (!PyArg_ParseTuple(args, "OOOOO:make_execute", &cache, &target, &fallback,
                        &environ, &dump_key))
    return NULL;
  if (!PyObject_TypeCheck(cache, (PyTypeObject *)cache_type)) {
    PyErr_SetString(PyExc_TypeError, "make_execute: cache must be a Cache");
    return NULL;
  }
  if (!PyCallable_Check(fallback)) {
    PyErr_SetString(PyExc_TypeError, "make_execute: fallback is not callable");
    return NULL;
  }
  if (environ != Py_None && !PyDict_Check(environ)) {
    PyErr_SetString(PyExc_TypeError,
                    "make_execute: environ must be a dict or None");
    return NULL;
  }
  PyObject *ref = PyWeakref_NewRef(target, NULL);
  if (!ref)
    return NULL;
  allocfunc alloc =
      (allocfunc)PyType_GetSlot((PyTypeObject *)exec_state_type, Py_tp_alloc);
  ExecState *s = (ExecState *)alloc((PyTypeObject *)exec_state_type, 0);
  if (!s) {
    Py_DECREF(ref);
    return NULL;
  }
  Py_INCREF(cache);
  s->cache = cache;
  s->target_ref = ref;
  Py_INCREF(fallback);
  s->fallback = fallback;
  if (environ != Py_None) {
    Py_INCREF(environ);
    s->environ = environ;
    Py_INCREF(dump_key);
    s->dump_key = dump_key;
  }
  PyObject *fn = PyCFunction_NewEx(&exec_def, (PyObject *)s, NULL);
  Py_DECREF(s);
  return fn;
}

static PyMethodDef module_methods[] = {
    {"make_execute", make_execute, METH_VARARGS, make_execute_doc},
    {NULL, NULL, 0, NULL}};

/* The module. */

PyDoc_STRVAR(module_doc,
             "The C fast path of fusion.runtime (Note [C fast path] in "
             "python/fusion/runtime.py).");

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "_fastpath",
                                        module_doc,
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

static int intern(PyObject **slot, const char *text) {
  *slot = PyUnicode_InternFromString(text);
  return *slot != NULL;
}

PyMODINIT_FUNC PyInit__fastpath(void) {
  if (!intern(&str_dtype, "dtype") || !intern(&str_shape, "shape") ||
      !intern(&str_stride, "stride") ||
      !intern(&str_get_device, "get_device") ||
      !intern(&str_data_ptr, "data_ptr") ||
      !intern(&str_as_strided, "as_strided") ||
      !intern(&str_device, "device") ||
      !intern(&str_last_execution, "last_execution") ||
      !intern(&str_current_device, "current_device") ||
      !intern(&str_raw_stream, "raw_stream") || !intern(&str_empty, "empty") ||
      !intern(&str_empty_strided, "empty_strided"))
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  /* The module and these statics each hold a reference to the types. */
  cache_type = PyType_FromSpec(&cache_spec);
  exec_state_type = cache_type ? PyType_FromSpec(&exec_state_spec) : NULL;
  if (!cache_type || !exec_state_type)
    goto fail;
  Py_INCREF(cache_type);
  if (PyModule_AddObject(m, "Cache", cache_type) < 0) {
    Py_DECREF(cache_type);
    goto fail;
  }
  if (PyModule_AddIntConstant(m, "VERSION", FASTPATH_VERSION) < 0 ||
      PyModule_AddIntConstant(m, "PACKED_WORDS", FUSION_PACKED_WORDS) < 0 ||
      PyModule_AddIntConstant(m, "MAX_RANK", FUSION_MAX_RANK) < 0)
    goto fail;
  return m;
fail:
  Py_CLEAR(cache_type);
  Py_CLEAR(exec_state_type);
  Py_DECREF(m);
  return NULL;
}
