#pragma once
// Core's English display text (mask family titles and descriptions, positional
// encodings, per-head measure names, units) shown in the UI in the user's
// language. Core never includes Qt, so its labels are translated here, under
// the "attn::CoreText" context of the .ts files.
#include <QString>

#include <string>
#include <string_view>

namespace attn::ui {

/// `english` translated into the installed UI language; unchanged when the
/// catalogue has no entry (a label core adds later still shows, in English).
QString coreText(std::string_view english);

/// True when `english` is one of the labels registered for translation; the
/// tests use it to catch a core label that was added without an entry.
bool coreTextRegistered(std::string_view english);

/// A core error message worded for the window: command-line options it
/// names become the controls that do the same in the GUI (--heads, --d-k) or
/// are left out where the window has none (--exec tiled, --memory-budget).
QString uiMessage(const std::string& coreMessage);

/// Core's UTF-8 text (a name, a label, a message) as a QString, untranslated.
inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace attn::ui
