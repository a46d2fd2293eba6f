// The plugin ABI's version rule (Note [Plugin ABI versions]) against cores newer than this one:
// a plugin built for N loads into every later core of the same major, never into an older minor
// or another major; the refusal names both versions.
#include "tensorflux/c/plugin_internal.h"
#include "test_util.h"

namespace {

uint32_t V(unsigned major, unsigned minor) { return TX_PLUGIN_MAKE_ABI_VERSION(major, minor); }

TEST(OlderMinorsOfTheSameMajorLoad) {
  for (unsigned core_minor = 0; core_minor < 5; ++core_minor)
    for (unsigned plugin_minor = 0; plugin_minor <= core_minor; ++plugin_minor)
      EXPECT_TRUE(tx::plugin::CheckAbiVersion(V(1, plugin_minor), V(1, core_minor), "p.so").ok());
  EXPECT_TRUE(tx::plugin::CheckAbiVersion(V(3, 2), V(3, 7), "p.so").ok());
}

TEST(NewerMinorIsRefusedNamingBothVersions) {
  tx::Status s = tx::plugin::CheckAbiVersion(V(1, 4), V(1, 3), "/x/libp.so");
  EXPECT_TRUE(s.code() == tx::Code::kFailedPrecondition);
  EXPECT_TRUE(s.message().find("'/x/libp.so' needs plugin ABI 1.4, newer than this core's 1.3") != std::string::npos);
}

TEST(AnotherMajorIsRefused) {
  for (uint32_t plugin : {V(2, 0), V(0, 9), V(2, 5)}) {
    tx::Status s = tx::plugin::CheckAbiVersion(plugin, V(1, 5), "p.so");
    EXPECT_TRUE(s.code() == tx::Code::kFailedPrecondition);
    EXPECT_TRUE(s.message().find("built for plugin ABI " + tx::plugin::AbiVersionString(plugin) +
                                 ", but this core serves ABI 1.5") != std::string::npos);
  }
}

TEST(TheCoreReportsTheHeadersVersion) {
  EXPECT_TRUE(TX_GetPluginAbiVersion() == TX_PLUGIN_ABI_VERSION);
  EXPECT_TRUE(tx::plugin::Api()->abi_version == TX_PLUGIN_ABI_VERSION);
  EXPECT_TRUE(tx::plugin::AbiVersionString(V(1, 12)) == "1.12");
}

}  // namespace
