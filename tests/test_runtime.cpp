// SPDX-License-Identifier: Apache-2.0 OR MIT
// Runtime: status strings, errors, version, ISA selection, threads.
#include "tests/test_common.hpp"

#include <cstdlib>
#include <thread>

using namespace posenc_test;

TEST(Runtime, StatusStrings) {
  EXPECT_STREQ(posenc_status_string(POSENC_OK), "POSENC_OK");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_NULL_POINTER), "POSENC_ERR_NULL_POINTER");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_INVALID_ARGUMENT), "POSENC_ERR_INVALID_ARGUMENT");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_UNSUPPORTED), "POSENC_ERR_UNSUPPORTED");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_OUT_OF_MEMORY), "POSENC_ERR_OUT_OF_MEMORY");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_SIZE_OVERFLOW), "POSENC_ERR_SIZE_OVERFLOW");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_NOT_CONVERGED), "POSENC_ERR_NOT_CONVERGED");
  EXPECT_STREQ(posenc_status_string(POSENC_ERR_INTERNAL), "POSENC_ERR_INTERNAL");
  EXPECT_STREQ(posenc_status_string(static_cast<posenc_status>(99)), "unknown status");
}

TEST(Runtime, Version) {
  // The header's compile-time version (posenc.h) is the library's run-time version.
  EXPECT_EQ(posenc_version(), static_cast<uint32_t>(POSENC_VERSION_NUMBER));
  EXPECT_EQ(posenc_version(), static_cast<uint32_t>(POSENC_VERSION_MAJOR * 10000 + POSENC_VERSION_MINOR * 100 +
                                                    POSENC_VERSION_PATCH));
  EXPECT_STREQ(posenc_version_string(), POSENC_VERSION_STRING);
  EXPECT_EQ(std::to_string(POSENC_VERSION_MAJOR) + "." + std::to_string(POSENC_VERSION_MINOR) + "." +
                std::to_string(POSENC_VERSION_PATCH),
            posenc_version_string());
}

TEST(Runtime, IsaNames) {
  EXPECT_STREQ(posenc_isa_name(POSENC_ISA_AUTO), "auto");
  EXPECT_STREQ(posenc_isa_name(POSENC_ISA_SCALAR), "scalar");
  EXPECT_STREQ(posenc_isa_name(POSENC_ISA_AVX2), "avx2");
  EXPECT_STREQ(posenc_isa_name(POSENC_ISA_AVX512), "avx512");
  EXPECT_STREQ(posenc_isa_name(POSENC_ISA_NEON), "neon");
  EXPECT_STREQ(posenc_isa_name(static_cast<posenc_isa>(3)), "unknown");
}

TEST(Runtime, IsaAvailableAndForcing) {
  const uint32_t mask = posenc_isa_available();
  EXPECT_TRUE(mask & POSENC_ISA_SCALAR);
#if defined(__x86_64__)
  EXPECT_FALSE(mask & POSENC_ISA_NEON);
  EXPECT_EQ(!!(mask & POSENC_ISA_AVX2), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
#elif defined(__aarch64__)
  EXPECT_TRUE(mask & POSENC_ISA_NEON);
  EXPECT_FALSE(mask & (POSENC_ISA_AVX2 | POSENC_ISA_AVX512));
#endif
  const posenc_isa all[] = {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON};
  for (posenc_isa isa : all) {
    if (mask & isa) {
      EXPECT_EQ(posenc_isa_set(isa), POSENC_OK) << posenc_isa_name(isa);
      EXPECT_EQ(posenc_isa_active(), isa);
      EXPECT_STREQ(posenc_last_error_message(), "");
    } else {
      const posenc_isa before = posenc_isa_active();
      EXPECT_POSENC_ERROR(posenc_isa_set(isa), POSENC_ERR_UNSUPPORTED, posenc_isa_name(isa));
      EXPECT_EQ(posenc_isa_active(), before) << "a failed posenc_isa_set must not change the path";
    }
  }
  EXPECT_POSENC_ERROR(posenc_isa_set(static_cast<posenc_isa>(3)), POSENC_ERR_INVALID_ARGUMENT, "isa");
  ASSERT_EQ(posenc_isa_set(POSENC_ISA_AUTO), POSENC_OK);
  // AUTO picks the best available path.
  posenc_isa best = POSENC_ISA_SCALAR;
  if (mask & POSENC_ISA_NEON) best = POSENC_ISA_NEON;
  if (mask & POSENC_ISA_AVX2) best = POSENC_ISA_AVX2;
  if (mask & POSENC_ISA_AVX512) best = POSENC_ISA_AVX512;
  EXPECT_EQ(posenc_isa_active(), best);
}

TEST(Runtime, Threads) {
  EXPECT_EQ(posenc_threads_set(3), POSENC_OK);
  EXPECT_EQ(posenc_threads_get(), 3);
  EXPECT_EQ(posenc_threads_set(1), POSENC_OK);
  EXPECT_EQ(posenc_threads_get(), 1);
  EXPECT_POSENC_ERROR(posenc_threads_set(-1), POSENC_ERR_INVALID_ARGUMENT, "n must be in");
  EXPECT_EQ(posenc_threads_get(), 1) << "a failed posenc_threads_set must not change the count";
  EXPECT_EQ(posenc_threads_set(0), POSENC_OK);
  EXPECT_GE(posenc_threads_get(), 1);
}

TEST(Runtime, ErrorMessageIsThreadLocalAndClearedOnSuccess) {
  EXPECT_NE(posenc_sinusoidal_f32(nullptr, -1, 4, 1e4, POSENC_SINUSOIDAL_HALVES, nullptr), POSENC_OK);
  EXPECT_NE(std::string(posenc_last_error_message()), "");
  std::string other = "unset";
  std::thread([&] { other = posenc_last_error_message(); }).join();
  EXPECT_EQ(other, "") << "the message of another thread leaked";
  float out[4];
  EXPECT_EQ(posenc_sinusoidal_f32(nullptr, 1, 4, 1e4, POSENC_SINUSOIDAL_HALVES, out), POSENC_OK);
  EXPECT_STREQ(posenc_last_error_message(), "");
}
