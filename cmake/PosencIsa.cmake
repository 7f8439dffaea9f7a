# SPDX-License-Identifier: Apache-2.0 OR MIT
# posenc_add_isa_objects(<isa> <sources>)
#
# Builds the object library posenc_kernels_<isa> from the kernel sources with that ISA's
# code-generation flags. Each object is compiled with
#   POSENC_NS=isa_<isa>      every kernels/ symbol lives in namespace posenc::isa_<isa>, so
#                            code built with different flags can never share a symbol (ODR);
#   POSENC_ISA_<ISA>=1       selects the xsimd architecture in kernels/simd.hpp.
# Nothing outside kernels/ is ever compiled with ISA flags.
function(posenc_add_isa_objects isa sources)
  set(target posenc_kernels_${isa})
  add_library(${target} OBJECT ${sources})
  string(TOUPPER ${isa} ISA_UP)
  target_compile_definitions(${target} PRIVATE POSENC_NS=isa_${isa} POSENC_ISA_${ISA_UP}=1
    POSENC_BUILDING_LIBRARY)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${target} PRIVATE xsimd)
  if(isa STREQUAL "avx2")
    # F16C (binary16 conversions): present on every x86 CPU with AVX2; the dispatch checks it.
    target_compile_options(${target} PRIVATE -mavx2 -mfma -mf16c -mprfchw)
  elseif(isa STREQUAL "avx512")
    target_compile_options(${target} PRIVATE -mavx2 -mfma -mf16c -mavx512f -mavx512dq -mavx512bw -mavx512vl -mprfchw
      $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized> -Wno-uninitialized)  # GCC 12 false positives inside avx512fintrin.h
  elseif(isa STREQUAL "neon")
    # Armv8-A: Advanced SIMD (NEON) with double-precision lanes is baseline on aarch64.
  elseif(isa STREQUAL "scalar")
    # Baseline flags only: this path is the reference the SIMD paths are tested against.
  else()
    message(FATAL_ERROR "unknown ISA ${isa}")
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
