#include "attn_ui/common/core_text.h"

#include <QCoreApplication>

#include <algorithm>
#include <iterator>
#include <string>

namespace attn::ui {
namespace {

constexpr const char* kContext = "attn::CoreText";

// Every label core shows through the UI, marked for lupdate. Must match core's
// tables word for word (tests/ui/common/core_text_test.cpp checks each table).
constexpr const char* kLabels[] = {
    // mask families (attn::maskFamilies)
    QT_TRANSLATE_NOOP("attn::CoreText", "None"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Every query attends to every key."),
    QT_TRANSLATE_NOOP("attn::CoreText", "Causal (look-ahead)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Query i sees keys j <= i only (decoder self-attention)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "Padding"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Keys that are pad tokens ([PAD], <pad>), or keys at or past LEN, are removed."),
    QT_TRANSLATE_NOOP("attn::CoreText", "number of real (non-pad) keys; empty: read pad tokens"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Sliding window"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Query i sees keys with |i - j| <= W; with causal, the W previous keys."),
    QT_TRANSLATE_NOOP("attn::CoreText", "keys on each side of the query (at least 1)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Dilated window"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Window with gaps: |i - j| <= W*D and i - j divisible by D (Longformer)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "keys on each side (at least 1)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "dilation: distance between kept keys (at least 1)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Global tokens"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Listed positions attend to and are attended by every token (Longformer)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "comma-separated token positions, from 0"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Block-diagonal"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Query i sees keys in its own block of B positions."),
    QT_TRANSLATE_NOOP("attn::CoreText", "block size (at least 1)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Random"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Each cell kept with probability P, seeded (BigBird's random attention)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "keep probability in [0, 1]"),
    QT_TRANSLATE_NOOP("attn::CoreText", "seed; the same seed gives the same cells"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Custom"),
    QT_TRANSLATE_NOOP("attn::CoreText", "A keep bitmap [Nq, Nk] from the input file's 'mask' array (1 = keep)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "2-D local window"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Image patches: query patch sees the patches within R rows and R columns of it, a (2R+1) x "
                      "(2R+1) square (Ramachandran et al. 2019)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "patches on each side, in rows and in columns (0: only itself)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "grid width in patches; empty: the image's patch grid"),
    QT_TRANSLATE_NOOP("attn::CoreText", "Sinusoidal 2-D (image patches)"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Image patches: sin/cos of the patch row in half the width, of the column in the other half "
                      "(ViT, MAE)."),
    // positional encodings (attn::positionalEncodings)
    QT_TRANSLATE_NOOP("attn::CoreText", "No position information: attention is permutation-equivariant."),
    QT_TRANSLATE_NOOP("attn::CoreText", "Sinusoidal"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "sin/cos of position at geometric frequencies, added to the embeddings (Vaswani et al. 2017)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "Learned (seeded)"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "A seeded absolute position table added to the embeddings (as in BERT, GPT-2)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "Rotary (RoPE)"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Rotates q and k pairwise by position, so q.k depends on the offset only (Su et al. 2021)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "ALiBi"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Adds -m_h |i - j| to head h's logits, with geometric slopes m_h (Press et al. 2022)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "T5 relative bias"),
    QT_TRANSLATE_NOOP("attn::CoreText",
                      "Adds a seeded per-head bias looked up by log-bucketed offset j - i (Raffel et al. 2020)."),
    QT_TRANSLATE_NOOP("attn::CoreText", "embeddings"),
    QT_TRANSLATE_NOOP("attn::CoreText", "q and k"),
    QT_TRANSLATE_NOOP("attn::CoreText", "logits"),
    // per-head measures (attn::headMeasures) and their units
    QT_TRANSLATE_NOOP("attn::CoreText", "mean entropy"),
    QT_TRANSLATE_NOOP("attn::CoreText", "min row entropy"),
    QT_TRANSLATE_NOOP("attn::CoreText", "max row entropy"),
    QT_TRANSLATE_NOOP("attn::CoreText", "normalized entropy"),
    QT_TRANSLATE_NOOP("attn::CoreText", "confidence (mean max weight)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "max - min weight"),
    QT_TRANSLATE_NOOP("attn::CoreText", "max / min weight"),
    QT_TRANSLATE_NOOP("attn::CoreText", "mean attention distance"),
    QT_TRANSLATE_NOOP("attn::CoreText", "share on self"),
    QT_TRANSLATE_NOOP("attn::CoreText", "share on previous token"),
    QT_TRANSLATE_NOOP("attn::CoreText", "share on next token"),
    QT_TRANSLATE_NOOP("attn::CoreText", "share on first token (sink)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "share on separators/punctuation"),
    QT_TRANSLATE_NOOP("attn::CoreText", "keys covering the mass (k)"),
    QT_TRANSLATE_NOOP("attn::CoreText", "k / unmasked keys"),
    QT_TRANSLATE_NOOP("attn::CoreText", "near-uniform rows"),
    QT_TRANSLATE_NOOP("attn::CoreText", "near-one-hot rows"),
    QT_TRANSLATE_NOOP("attn::CoreText", "nats"),
    QT_TRANSLATE_NOOP("attn::CoreText", "bits"),
    QT_TRANSLATE_NOOP("attn::CoreText", "tokens"),
    QT_TRANSLATE_NOOP("attn::CoreText", "keys"),
};

}  // namespace

QString coreText(std::string_view english) {
  const std::string s(english);  // translate() needs a terminated string
  return QCoreApplication::translate(kContext, s.c_str());
}

QString uiMessage(const std::string& coreMessage) {
  // Core's messages are English; the replacements stay English so a message
  // never mixes two languages.
  QString m = QString::fromStdString(coreMessage);
  m.replace(QStringLiteral(" heads (--heads) do not divide"),
            QStringLiteral(" heads (Configuration > Heads) do not divide"));
  m.replace(QStringLiteral("; set --d-k"), QStringLiteral("; set Configuration > d_k"));
  // The window has no execution-path or budget switch for this case (its
  // metrics-only view starts above the sequence limit): fewer tokens or heads.
  m.replace(QStringLiteral("use --exec tiled for metrics without the full matrices, "), QString());
  m.replace(QStringLiteral(", or raise the budget (--memory-budget)"), QString());
  return m;
}

bool coreTextRegistered(std::string_view english) {
  return std::any_of(std::begin(kLabels), std::end(kLabels),
                     [english](const char* label) { return english == label; });
}

}  // namespace attn::ui
