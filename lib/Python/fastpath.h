/* Internal to fusion._fastpath (fastpath.c, fastpath_table.c): the entries
 * of a Cache, the Cache itself, the signature table and the reading of
 * inputs. Not installed. */
#ifndef FUSION_PYTHON_FASTPATH_H
#define FUSION_PYTHON_FASTPATH_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "fusion/Runtime/fusion_runtime.h"

/* Bumped when the Python side must change with this file. */
#define FASTPATH_VERSION 3

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

/* Attribute and method names, interned once (PyInit__fastpath). */
extern PyObject *str_dtype, *str_shape, *str_stride, *str_get_device,
    *str_data_ptr, *str_as_strided, *str_device, *str_last_execution,
    *str_current_device, *str_raw_stream, *str_empty, *str_empty_strided,
    *str_storage_offset;

/* Entries. */

typedef struct {
  Py_ssize_t alias; /* input index of a view output, or -1 */
  /* A view: its first element's offset in the input, in elements (a
   * slice's start; FUSION_PACKED_OFFSET). */
  int64_t offset;
  PyObject *shape; /* tuple */
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

/* The entry table (fastpath_table.c). */

/* Drops a reference; the last one frees the entry. */
void entry_release(Entry *e);
void cache_clear_entries(Cache *c);
Entry *cache_find(Cache *c, const int64_t *key, Py_ssize_t len, uint64_t hash);
/* Adds `e` (the table's reference), replacing an entry of the same key;
 * a full table is emptied first. */
void cache_insert(Cache *c, Entry *e);

/* Reading inputs (fastpath_table.c). */

/* Reads an int attribute result; 0 with an exception set on failure. */
int read_int64(PyObject *obj, int64_t *out);
int read_pointer(PyObject *obj, void **out);
/* dtype, rank, sizes and strides of a tensor into `words`. */
int read_layout(Cache *c, PyObject *x, int64_t *words, int unknown_ok);
/* The signature key of `inputs` and their pointers and scalar values. */
int make_key(Cache *c, PyObject *inputs, int64_t *key, Py_ssize_t *len,
             void **ptrs, int64_t *ivals, double *dvals);

static inline uint64_t hash_words(const int64_t *w, Py_ssize_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (Py_ssize_t i = 0; i < n; ++i) {
    h ^= (uint64_t)w[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

/* Scratch memory. */

typedef struct {
  int64_t stack[STACK_WORDS];
  int64_t *heap;
} Scratch;

static inline int64_t *scratch_get(Scratch *s, size_t words) {
  s->heap = NULL;
  if (words <= STACK_WORDS)
    return s->stack;
  s->heap = PyMem_Malloc(words * sizeof(int64_t));
  if (!s->heap)
    PyErr_NoMemory();
  return s->heap;
}

static inline int is_float_dtype(int64_t code) {
  return code == FUSION_DTYPE_F64 || code == FUSION_DTYPE_F32 ||
         code == FUSION_DTYPE_F16 || code == FUSION_DTYPE_BF16 ||
         code == FUSION_DTYPE_F8E4M3 || code == FUSION_DTYPE_F8E5M2;
}

/* Words of per-call scratch for n inputs and m outputs: key, input records,
 * output records, pointers and scalar values. */
static inline size_t scratch_words(Py_ssize_t n, Py_ssize_t m) {
  return (size_t)n * (TENSOR_KEY_WORDS + FUSION_PACKED_WORDS + 3) +
         (size_t)m * (FUSION_PACKED_WORDS + 1) + 4;
}

#endif
