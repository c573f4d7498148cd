# `cmake --install`: headers (the generated ones too), the runtime (static
# and shared, versioned SONAME), the compiler libraries, the tools, the
# module file schema, and the CMake package Fusion (docs/embedding.md):
#
#   find_package(Fusion REQUIRED)                        # the runtime alone
#   find_package(Fusion REQUIRED COMPONENTS Compiler)    # and the compiler
#   target_link_libraries(app PRIVATE Fusion::Runtime)   # or RuntimeShared,
#                                                        # Compiler, CAPI
#
# Two export sets: FusionRuntimeTargets (no MLIR or LLVM) and
# FusionCompilerTargets (the compiler's static libraries; their link
# interfaces name MLIR's targets, which FusionConfig.cmake finds through the
# MLIRConfig.cmake this build used).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FUSION_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/fusion)

# Headers: the sources' and the generated ones (ops, passes, the schema,
# Version.h). TableGen sources too, for projects that build on the dialect.
install(DIRECTORY ${FUSION_SOURCE_DIR}/include/fusion
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
        PATTERN "CMakeLists.txt" EXCLUDE)
install(DIRECTORY ${FUSION_BINARY_DIR}/include/fusion
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
        PATTERN "CMakeFiles" EXCLUDE)
install(DIRECTORY ${FUSION_SOURCE_DIR}/include/fusion-c
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${FUSION_SCHEMA} DESTINATION ${CMAKE_INSTALL_DATADIR}/fusion)

# The runtime.
set_target_properties(FusionRuntime PROPERTIES EXPORT_NAME Runtime)
set_target_properties(FusionRuntimeShared PROPERTIES EXPORT_NAME RuntimeShared)
install(TARGETS FusionRuntime FusionRuntimeShared
        EXPORT FusionRuntimeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT FusionRuntimeTargets NAMESPACE Fusion::
        DESTINATION ${FUSION_INSTALL_CMAKEDIR})

set(FUSION_PACKAGE_COMPILER OFF)
if(FUSION_ENABLE_COMPILER AND NOT FUSION_STATIC_LLVM)
  set(FUSION_PACKAGE_COMPILER ON)
  # The compiler's libraries (add_mlir_library installs them too, in MLIR's
  # export set, which nothing installs), and Fusion::Compiler, one target
  # that links them all.
  set(FUSION_COMPILER_LIBRARIES
      FusionDialect FusionDialectUtils FusionTransforms FusionKernelOpsToGPU
      FusionLinalgToFusion
      FusionToGPU FusionPipeline FusionCompileCache FusionTarget
      FusionRegistration
      FusionInterpreter FusionCAPI)
  add_library(FusionCompiler INTERFACE)
  target_link_libraries(FusionCompiler INTERFACE ${FUSION_COMPILER_LIBRARIES}
                        FusionRuntime)
  target_include_directories(FusionCompiler INTERFACE
    $<BUILD_INTERFACE:${FUSION_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${FUSION_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(FusionCompiler PROPERTIES EXPORT_NAME Compiler)
  # Fusion::CAPI: the compiler's C API (fusion-c/Fusion.h) with MLIR's.
  target_include_directories(FusionCAPI INTERFACE
    $<BUILD_INTERFACE:${FUSION_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(FusionCAPI PROPERTIES EXPORT_NAME CAPI)
  install(TARGETS ${FUSION_COMPILER_LIBRARIES} FusionCompiler
          EXPORT FusionCompilerTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT FusionCompilerTargets NAMESPACE Fusion::
          DESTINATION ${FUSION_INSTALL_CMAKEDIR})
  install(TARGETS fusion-opt fusion-translate fusion-run fusion-interpret
                  fusion-cache
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # libfusion_compiler.so: both C APIs in one shared library (exports only
  # C symbols), for hosts that dlopen the compiler, as the Python package
  # does.
  install(TARGETS FusionCompilerShared
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

configure_package_config_file(
  ${FUSION_SOURCE_DIR}/cmake/FusionConfig.cmake.in
  ${FUSION_BINARY_DIR}/cmake/FusionConfig.cmake
  INSTALL_DESTINATION ${FUSION_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may break the API (SameMinorVersion).
write_basic_package_version_file(
  ${FUSION_BINARY_DIR}/cmake/FusionConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${FUSION_BINARY_DIR}/cmake/FusionConfig.cmake
              ${FUSION_BINARY_DIR}/cmake/FusionConfigVersion.cmake
        DESTINATION ${FUSION_INSTALL_CMAKEDIR})
