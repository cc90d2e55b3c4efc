// Runs the checkpoint loader's fuzz entry point over the checked-in corpus
// and over deterministic mutations of it (every prefix, every single-byte
// change to a few values), so the fuzz target builds and runs in every test
// run.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nn/serialize/pytorch_checkpoint.h"
#include "nn/serialize/serialize_test_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace torchlet {
namespace {

constexpr char kCorpus[] = "nn/serialize/testdata/pytorch_fuzz_corpus";

using testing::read_file;

std::vector<std::string> corpus_files(const std::string& suffix) {
  std::vector<std::string> paths;
  for (const std::string& name : testing::dir_names(kCorpus, suffix)) {
    paths.push_back(std::string(kCorpus) + "/" + name);
  }
  return paths;
}

std::vector<std::string> all_corpus_files() {
  std::vector<std::string> paths = corpus_files(".pt");
  for (const std::string& p : corpus_files(".pkl")) paths.push_back(p);
  return paths;
}

int fuzz_one(const std::string& bytes) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(PytorchCheckpointFuzzTest, CorpusHoldsRealCheckpointsThatLoad) {
  const std::vector<std::string> paths = corpus_files(".pt");
  ASSERT_GE(paths.size(), 6u);
  for (const std::string& path : paths) EXPECT_NO_THROW(load_pytorch(path)) << path;
}

TEST(PytorchCheckpointFuzzTest, CorpusHoldsPicklesOfEveryProtocolTorchSaveWrites) {
  EXPECT_EQ(corpus_files("_p2.pkl").size(), 3u);
  EXPECT_EQ(corpus_files("_p4.pkl").size(), 3u);
}

TEST(PytorchCheckpointFuzzTest, EntryPointAcceptsEveryPrefixOfEveryCorpusFile) {
  for (const std::string& path : all_corpus_files()) {
    const std::string bytes = read_file(path);
    for (size_t n = 0; n <= bytes.size(); ++n) {
      EXPECT_EQ(fuzz_one(bytes.substr(0, n)), 0) << path << " cut to " << n << " bytes";
    }
  }
}

TEST(PytorchCheckpointFuzzTest, EntryPointAcceptsEverySingleByteChangeOfEveryCorpusFile) {
  for (const std::string& path : all_corpus_files()) {
    const std::string bytes = read_file(path);
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (const unsigned char value : {0x00, 0x01, 0x02, 0x28, 0x2e, 0x71, 0x7f, 0x80, 0xff}) {
        std::string mutated = bytes;
        mutated[i] = static_cast<char>(value);
        EXPECT_EQ(fuzz_one(mutated), 0) << path << " byte " << i << " = " << int{value};
      }
    }
  }
}

}  // namespace
}  // namespace torchlet
