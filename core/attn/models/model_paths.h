#pragma once
// Which files a model folder may name. A model folder is untrusted: its
// model.safetensors, shards or tokenizer.json may be symlinks, and one leaving
// the folder (to /etc/passwd, another user's files) must not be read. The rule:
// a file must resolve (realpath) inside the model folder, or, for a snapshot of
// the Hugging Face cache (models--org--name/snapshots/<hash>/), inside that
// models--org--name folder, where snapshots/<hash>/file -> ../../blobs/<sha>
// links point. Anything else is refused before it is opened.
#include <string>

#include "attn/status.h"

namespace attn::models {

/// Ok when `file` (inside model folder `dir`) resolves within the rule above, or
/// does not exist (opening it then says so). Otherwise one message naming the
/// file, where it leads, and the folder.
Status checkModelFilePath(const std::string& dir, const std::string& file);

}  // namespace attn::models
