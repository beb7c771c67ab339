#pragma once
// The Backend selector's entries: what this build and machine offer (core's
// attn::backendsFound), e.g. "CUDA: NVIDIA H200, 141 GB", with an unavailable
// backend greyed out and its reason as the entry's tooltip.
class QComboBox;

namespace attn::ui {

/// Fills `box` with cpu, cuda and auto; item data is the backend's name.
/// Returns whether a CUDA device was found.
bool fillBackendChoices(QComboBox* box);

}  // namespace attn::ui
