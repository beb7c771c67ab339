#pragma once
// File and folder dialogs that open where the user last picked something of the same kind
// (sessions, tensors, images, model folders, model files each keep their own place), so a
// classroom's second image is one click away from the first.
#include <QString>

class QWidget;

namespace attn::ui {

/// QFileDialog::getOpenFileName starting in the folder stored under `settingsKey` (e.g.
/// "paths/lastImageFolder"); a picked file's folder is stored back. Empty when cancelled.
QString openFileRemembered(QWidget* parent, const QString& title, const QString& settingsKey,
                           const QString& filter);

/// QFileDialog::getExistingDirectory with the same remembering: the picked folder's parent is
/// stored, so the next dialog shows the picked folder beside its siblings.
QString openFolderRemembered(QWidget* parent, const QString& title, const QString& settingsKey);

}  // namespace attn::ui
