# The wheel's native part (pyproject.toml; scikit-build-core builds
# FusionCompilerShared, FusionRuntimeShared and FusionFastpath and installs
# the component `python` into the wheel's root): the three libraries go into
# the package folder `fusion`, where python/fusion/_paths.py looks first.
if(NOT FUSION_ENABLE_COMPILER OR NOT FUSION_ENABLE_PYTHON_EXT)
  message(FATAL_ERROR "the wheel needs the compiler and the Python extension "
                      "(FUSION_ENABLE_COMPILER, FUSION_ENABLE_PYTHON_EXT)")
endif()
install(FILES $<TARGET_FILE:FusionCompilerShared>
        DESTINATION fusion COMPONENT python)
# One file, no SONAME links (a wheel holds no symlinks); ctypes loads it by
# path.
install(FILES $<TARGET_FILE:FusionRuntimeShared>
        DESTINATION fusion RENAME libfusion_runtime.so COMPONENT python)
install(FILES $<TARGET_FILE:FusionFastpath>
        DESTINATION fusion COMPONENT python)
