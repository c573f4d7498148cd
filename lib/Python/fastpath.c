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
#include "fastpath.h"

PyObject *str_dtype, *str_shape, *str_stride, *str_get_device, *str_data_ptr,
    *str_as_strided, *str_device, *str_last_execution, *str_current_device,
    *str_raw_stream, *str_empty, *str_empty_strided, *str_storage_offset;

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

/* The entry's input records with this call's scalar values. */
static void bind_scalars(const Entry *e, int64_t *records, const int64_t *ivals,
                         const double *dvals) {
  Py_ssize_t n = e->num_inputs;
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
}

/* The stream of a call of `e` into *stream: 1; 0 with an exception set;
 * -1 when Python takes the call (another current device, a stream that is
 * not an int).
 *
 * The device: as runtime.Executable.launch, another current device is
 * handled in Python (with a device guard). Note [Context check]: the
 * backend's current_device() costs ~0.3 us per call with torch; when the
 * CUDA context current now is the one that was current on the entry's
 * device when it was added, that device is still current (a context
 * belongs to one device), so the driver is asked instead (~20 ns). */
static int call_stream(Cache *c, const Entry *e, PyObject *stream_arg,
                       void **stream) {
  int device_ok = 0;
  if (c->current_context && e->context) {
    void *context = NULL;
    device_ok = c->current_context(&context) == 0 && context == e->context;
  }
  if (!device_ok) {
    int64_t current = 0;
    if (!read_int64(PyObject_CallNoArgs(c->current_device), &current))
      return 0;
    if (current != e->device_index)
      return -1;
  }
  if (stream_arg) {
    if (!PyLong_Check(stream_arg))
      return -1; /* ctypes' conversion in Python explains */
    return read_pointer((Py_INCREF(stream_arg), stream_arg), stream);
  }
  return read_pointer(
      PyObject_CallFunctionObjArgs(c->raw_stream, e->device_index_obj, NULL),
      stream);
}

/* Provided outputs (their layout is checked by the runtime): their records
 * and pointers, 1; -1 when Python takes them (not a sequence of m tensors
 * this code can read). */
static int read_outputs(Cache *c, PyObject *outputs, Py_ssize_t m,
                        int64_t *out_records, void **out_data) {
  if (!(PyTuple_Check(outputs) || PyList_Check(outputs)) ||
      PySequence_Size(outputs) != m) {
    PyErr_Clear();
    return -1;
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
      return -1;
    }
    r[FUSION_PACKED_DTYPE] = w[0];
    r[FUSION_PACKED_RANK] = w[1];
    for (int64_t d = 0; d < w[1]; ++d) {
      r[FUSION_PACKED_SIZES + d] = w[2 + d];
      r[FUSION_PACKED_STRIDES + d] = w[2 + w[1] + d];
    }
  }
  return 1;
}

/* New outputs of a call of `e` (a list) and their pointers; NULL with an
 * exception set. */
static PyObject *new_outputs(Cache *c, const Entry *e, PyObject *inputs,
                             void **out_data) {
  Py_ssize_t m = e->num_outputs;
  PyObject *list = PyList_New(m);
  if (!list)
    return NULL;
  for (Py_ssize_t o = 0; o < m; ++o) {
    OutputSpec *s = &e->outputs[o];
    PyObject *t;
    if (s->alias >= 0) {
      /* as_strided keeps the input's storage offset unless given one: a
       * view that starts inside the input (a slice) is given the input's
       * plus its own. */
      PyObject *src = PySequence_GetItem(inputs, s->alias);
      int64_t base = 0;
      t = NULL;
      if (src && s->offset == 0) {
        t = PyObject_CallMethodObjArgs(src, str_as_strided, s->shape,
                                       s->strides, NULL);
      } else if (src && read_int64(PyObject_CallMethodObjArgs(
                                       src, str_storage_offset, NULL),
                                   &base)) {
        PyObject *start = PyLong_FromLongLong(base + s->offset);
        t = start ? PyObject_CallMethodObjArgs(src, str_as_strided, s->shape,
                                               s->strides, start, NULL)
                  : NULL;
        Py_XDECREF(start);
      }
      Py_XDECREF(src);
      out_data[o] = NULL; /* the runtime passes the input's pointer */
    } else {
      PyObject *like =
          s->like >= 0 ? PySequence_GetItem(inputs, s->like) : NULL;
      if (like && (PyObject *)Py_TYPE(like) == c->tensor_type)
        t = PyObject_CallFunctionObjArgs(c->empty_like, like, NULL);
      else
        t = PyObject_Call(s->contiguous ? c->empty : c->empty_strided, s->args,
                          s->kwargs);
      Py_XDECREF(like);
      if (t && !read_pointer(PyObject_CallMethodObjArgs(t, str_data_ptr, NULL),
                             &out_data[o])) {
        Py_DECREF(t);
        t = NULL;
      }
    }
    if (!t) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SetItem(list, o, t);
  }
  return list;
}

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
  PyObject *result = NULL, *created = NULL;
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
  bind_scalars(e, records, ivals, dvals);

  void *stream = NULL;
  int found = call_stream(c, e, stream_arg, &stream);
  if (found <= 0) {
    result = found < 0 ? Py_NewRef(Py_None) : NULL;
    goto done;
  }
  const int64_t *out_records_arg = e->out_records;
  if (outputs) {
    if (read_outputs(c, outputs, m, out_records, out_data) < 0) {
      result = Py_NewRef(Py_None);
      goto done;
    }
    out_records_arg = out_records;
  } else if (!(created = new_outputs(c, e, inputs, out_data))) {
    goto done;
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
    result = Py_NewRef(outputs);
  } else {
    result = created;
    created = NULL;
  }

done:
  Py_XDECREF(created);
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
    long long offset = 0;
    if (!PyArg_ParseTuple(spec, "OOOOOL:output spec", &alias, &shape, &strides,
                          &dtype, &contiguous, &offset)) {
      ok = 0;
      break;
    }
    s->offset = offset;
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
      !intern(&str_empty_strided, "empty_strided") ||
      !intern(&str_storage_offset, "storage_offset"))
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
