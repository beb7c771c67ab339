#pragma once
// The encoder-decoder forward (Vaswani et al. 2017, figure 1): the encoder over the
// source once, then the decoder over the target rows as they come, with a key/value
// cache for its self-attention and the encoder's keys and values computed once for
// cross-attention. Every attention row is kept as it is computed, so forced decoding
// (all target rows at once) and generation (one row a step) give the same maps.
#include <memory>
#include <string>
#include <vector>

#include "attn/engine.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/seq2seq/seq2seq_interventions.h"
#include "attn/models/seq2seq/seq2seq_weights.h"

namespace attn::models {

/// The attention rows one decoder layer has produced so far.
struct DecoderLayerCache {
  Mat selfK, selfV;                      // [t, d]: keys and values of every row fed
  Mat crossK, crossV;                    // [Ns, d]: of the encoder output
  std::vector<Mat> selfMaps, crossMaps;  // per head: [t, t] (causal, 0 above the diagonal), [t, Ns]
  Mat selfConcat, crossConcat;           // [t, H * hd]: the heads' outputs before W_O
  Mat selfOut, crossOut;                 // [t, d]: after W_O, before the residual
  Mat selfQ, crossQ;                     // [t, H * hd]: the queries, kept only with Seq2SeqState::keepQkv
};

/// One source sentence through the model: the encoder's output and maps, the decoder's cache.
struct Seq2SeqState {
  Mat encoderOut;                             // [Ns, d]
  std::vector<Mat> encoderConcat;             // per layer [Ns, H * hd]
  std::vector<Mat> encoderAttnOut;            // per layer [Ns, d] after W_O
  std::vector<std::vector<Mat>> encoderMaps;  // per layer, per head [Ns, Ns]
  std::vector<DecoderLayerCache> decoder;
  std::vector<int> sourceIds, decoderIds;  // fed so far
  /// T5: the relative position bias per head, computed by each stack's first layer and added
  /// in all of them: encoder [Ns, Ns]; decoder [m, t] for the rows being fed.
  std::vector<Mat> encoderBias, decoderBias;
  /// Set before encodeSource (which keeps them): the interventions applied (null: none), and
  /// whether every head's q, k, v are kept for seq2seqResults (the step-through walks them).
  std::shared_ptr<const Seq2SeqEdits> edits;
  bool keepQkv = false;
  std::vector<Mat> encoderQ, encoderK, encoderV;  // per layer [Ns, H * hd], with keepQkv
};

/// Where a layer's heads are edited: the per-head edits (null or empty: none) and the row of the
/// whole map the new rows start at.
struct Seq2SeqEditsAt {
  const std::vector<Seq2SeqHeadEdit>* heads = nullptr;
  int firstRow = 0;
};
Seq2SeqEditsAt seq2seqEditsAt(const Seq2SeqState& s, Seq2SeqStack stack, int layer, int firstRow);

/// The shared stages one family's graph is made of (families/bart.cpp).
struct Seq2SeqGraph {
  /// h [n, d]: the embeddings of `ids` at positions first, first + 1, ... of the encoder
  /// (decoder false) or the decoder.
  void (*embed)(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool decoder, const std::vector<int>& ids,
                int first, Mat& h);
  /// Encoder layer l on h [Ns, d], its maps into s.
  void (*encoderLayer)(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, Mat& h, Seq2SeqState& s);
  /// Decoder layer l on the new rows h [m, d] at positions first.., appending to s.decoder[l].
  void (*decoderLayer)(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, int first, Mat& h,
                       Seq2SeqState& s);
  /// After a stack's last layer (T5's final_layer_norm); null: nothing.
  void (*stackEnd)(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool decoder, Mat& h) = nullptr;
};

Seq2SeqGraph bartSeq2SeqGraph();
Seq2SeqGraph t5Seq2SeqGraph();
Seq2SeqGraph seq2seqGraph(const Seq2SeqConfig& c);

/// softmax(q k^T * scale + bias[h]) v for every head of q [m, H*hd] over k, v [n, H*hd] (bias
/// [m, n] per head, or none); with `causalFirst` >= 0, query row i sees keys 0..causalFirst + i
/// only (weights exactly 0 past it); `edits` changes its heads (editedHeadSoftmax). concat
/// [m, H*hd] = the heads' outputs; maps[h] [m, n].
void seq2seqAttention(const Mat& q, const Mat& k, const Mat& v, int heads, float scale, int causalFirst,
                      Mat& concat, std::vector<Mat>& maps, const std::vector<Mat>* bias = nullptr,
                      const Seq2SeqEditsAt& edits = {});

/// With s.keepQkv: keeps an encoder layer's q, k, v, or appends a decoder layer's new query rows.
void keepEncoderQkv(Seq2SeqState& s, const Mat& q, const Mat& k, const Mat& v);
void keepDecoderQueries(const Seq2SeqState& s, DecoderLayerCache& d, const Mat& selfQ, const Mat& crossQ);

/// Appends a decoder layer's new rows: maps per head (self [m, t], cross [m, Ns]), the heads'
/// outputs and the attention outputs after W_O.
void recordDecoderRows(DecoderLayerCache& d, const std::vector<Mat>& selfMaps, const Mat& selfConcat,
                       const Mat& selfOut, const std::vector<Mat>& crossMaps, const Mat& crossConcat,
                       const Mat& crossOut);
/// cache = [cache; rows] (a key or value cache growing a row block at a time).
void appendCacheRows(Mat& cache, const Mat& rows);

/// Encodes the source ids (checked against the vocabulary and positions; `src` names the
/// limit in errors) and prepares the decoder cache; any earlier decoding is dropped.
Status encodeSource(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids,
                    const std::string& src, Seq2SeqState& s);
/// Feeds `ids` to the decoder after the rows fed so far; `hidden` [m, d]: the decoder's output
/// rows as lm_head reads them (after the final norm and T5's scale), no logits.
Status decodeHidden(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids,
                    const std::string& src, Seq2SeqState& s, Mat& hidden);
/// Feeds `ids` to the decoder after the rows fed so far; logits [m, V] of the new rows
/// (lm_head + final_logits_bias), or of the last one only with lastOnly.
Status decodeRows(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids, bool lastOnly,
                  const std::string& src, Seq2SeqState& s, Mat& logits);

/// The three attention kinds as engine results, one per layer: encoder self-attention
/// [Ns, Ns], decoder self-attention [Nt, Nt] (causal mask) and cross-attention [Nt, Ns]. With
/// s.keepQkv every head also has its q, k, v (and T5's position bias as logitBias), what its
/// weights were computed from: softmax(q k^T * scale + logitBias) (scale 1/sqrt(head_dim), or 1
/// for T5: scaledScores false), causal in the decoder.
struct Seq2SeqAttention {
  std::vector<AttentionResult> encoder, decoder, cross;
  bool scaledScores = true;
};
Seq2SeqAttention seq2seqResults(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const Seq2SeqState& s,
                                const std::vector<std::string>& sourceTokens,
                                const std::vector<std::string>& targetTokens);

}  // namespace attn::models
