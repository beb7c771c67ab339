#include "attn_ui/training/training_figures.h"

#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QProcess>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>
#include <cmath>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {
namespace {

attn::Error err(const QString& path, const QString& what) {
  return attn::Error{QString("%1: %2").arg(path, what).toStdString()};
}

// One map as filled squares, weights on a fixed 0..1 scale; NaN cells grey.
// color() caches its lookup table, so the gradient is not const.
void paintMap(QPainter& p, const QRectF& r, const attn::Mat& m, QCPColorGradient& g) {
  if (m.rows() == 0 || m.cols() == 0) return;
  const double cw = r.width() / m.cols(), ch = r.height() / m.rows();
  const QCPRange range(0.0, 1.0);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double v = m(i, j);
      const QColor c = std::isfinite(v) ? QColor::fromRgb(g.color(v, range)) : QColor(200, 200, 200);
      // Overlap by a hair so antialiasing leaves no seams between cells.
      p.fillRect(QRectF(r.left() + j * cw, r.top() + i * ch, cw + 0.35, ch + 0.35), c);
    }
  p.setPen(QPen(QColor(90, 90, 90), 0.6));
  p.setBrush(Qt::NoBrush);
  p.drawRect(r);
}

void paintScaleBar(QPainter& p, const QRectF& r, QCPColorGradient& g) {
  const int steps = 64;
  for (int k = 0; k < steps; ++k) {
    const double v = 1.0 - (k + 0.5) / steps;
    p.fillRect(QRectF(r.left(), r.top() + k * r.height() / steps, r.width(), r.height() / steps + 0.35),
               QColor::fromRgb(g.color(v, QCPRange(0, 1))));
  }
  p.setPen(QPen(Qt::black, 0.6));
  p.drawRect(r);
  p.drawText(QRectF(r.right() + 3, r.top() - 7, 30, 14), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("1"));
  p.drawText(QRectF(r.right() + 3, r.bottom() - 7, 30, 14), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
}

}  // namespace

void paintMapGrid(QPainter& p, const QRect& target, const std::vector<MapRow>& rows, const attn::Mat* expected,
                  const QStringList& columnTitles, const QStringList& tokens, const QString& colormap,
                  const QString& title) {
  // Time runs left to right: one column per recorded step (captioned), one
  // row per head (titled from columnTitles), the expected pattern last.
  p.save();
  p.fillRect(target, Qt::white);
  QCPColorGradient g = colormapGradient(colormap);
  size_t heads = 0;
  for (const MapRow& r : rows) heads = std::max(heads, r.maps.size());
  const int nrows = static_cast<int>(heads);
  const int cols = static_cast<int>(rows.size()) + (expected ? 1 : 0);
  if (cols == 0 || nrows == 0) {
    p.restore();
    return;
  }
  QFont f = p.font();
  f.setPointSizeF(9);
  p.setFont(f);
  const QFontMetricsF fm(f);
  const double titleH = title.isEmpty() ? 0 : fm.height() * 2.0;
  const double headerH = fm.height() * 1.5;
  double labelW = 0;
  for (int h = 0; h < nrows && nrows > 1; ++h)
    labelW = std::max(labelW, fm.horizontalAdvance(h < columnTitles.size() ? columnTitles[h] : QString()) + 10);
  const double scaleW = 34, gap = 8, tokensH = fm.height() * 1.2;
  const double availW = target.width() - labelW - scaleW - gap * cols - 8;
  const double availH = target.height() - titleH - headerH - gap * nrows - tokensH;
  const double side = std::max(4.0, std::min(availW / cols, availH / nrows));
  const double gridW = labelW + cols * (side + gap) + scaleW;
  const double gridH = titleH + headerH + nrows * (side + gap) + tokensH;
  const double x0 = target.left() + std::max(0.0, (target.width() - gridW) / 2) + labelW;
  const double y0 = target.top() + std::max(0.0, (target.height() - gridH) / 2) + titleH + headerH;
  p.setPen(Qt::black);
  if (!title.isEmpty()) {
    QFont tf = f;
    tf.setPointSizeF(11);
    tf.setBold(true);
    p.setFont(tf);
    p.drawText(QRectF(target.left(), y0 - headerH - titleH, target.width(), titleH), Qt::AlignCenter, title);
    p.setFont(f);
  }
  for (int c = 0; c < cols; ++c) {
    const bool isExpected = c == static_cast<int>(rows.size());
    const QString caption = isExpected ? (columnTitles.size() > nrows ? columnTitles[nrows] : QString())
                                       : rows[static_cast<size_t>(c)].caption;
    p.drawText(QRectF(x0 + c * (side + gap) - gap / 2, y0 - headerH, side + gap, headerH), Qt::AlignCenter, caption);
  }
  for (int h = 0; h < nrows; ++h) {
    const double y = y0 + h * (side + gap);
    if (nrows > 1)
      p.drawText(QRectF(x0 - labelW, y, labelW - 6, side), Qt::AlignRight | Qt::AlignVCenter,
                 h < columnTitles.size() ? columnTitles[h] : QString());
    for (int c = 0; c < cols; ++c) {
      const QRectF cell(x0 + c * (side + gap), y, side, side);
      if (c < static_cast<int>(rows.size())) {
        const auto& maps = rows[static_cast<size_t>(c)].maps;
        if (h < static_cast<int>(maps.size())) paintMap(p, cell, maps[static_cast<size_t>(h)], g);
      } else if (expected) {
        paintMap(p, cell, *expected, g);
      }
    }
  }
  // Key tokens under the bottom row when the cells are big enough to read them.
  const attn::Mat* first = expected ? expected : (!rows.front().maps.empty() ? &rows.front().maps.front() : nullptr);
  if (first && tokens.size() == first->cols() && first->cols() > 0 && side / first->cols() >= 9) {
    QFont sf = f;
    sf.setPointSizeF(std::clamp(side / first->cols() * 0.5, 5.0, 8.0));
    p.setFont(sf);
    p.setPen(QColor(60, 60, 60));
    const double cell = side / first->cols();
    const double lastY = y0 + (nrows - 1) * (side + gap) + side;
    for (int c = 0; c < cols; ++c)
      for (int t = 0; t < tokens.size(); ++t)
        p.drawText(QRectF(x0 + c * (side + gap) + t * cell, lastY + 1, cell, tokensH), Qt::AlignHCenter | Qt::AlignTop,
                   tokens[t]);
    p.setFont(f);
  }
  p.setPen(Qt::black);
  paintScaleBar(p, QRectF(x0 + cols * (side + gap), y0, 10, std::min(side * nrows + gap * (nrows - 1), 200.0)), g);
  p.restore();
}

attn::Status exportMapGrid(const std::vector<MapRow>& rows, const attn::Mat* expected,
                           const QStringList& columnTitles, const QStringList& tokens, const QString& path,
                           const FigureOptions& options) {
  if (rows.empty()) return err(path, "no recorded steps to draw");
  return writeFigure(path, options, [&](QCPPainter& painter, const QRect& target) {
    paintMapGrid(painter, target, rows, expected, columnTitles, tokens, options.colormap, options.title);
  });
}

QImage renderMapFrame(const MapRow& row, const attn::Mat* expected, const QStringList& columnTitles,
                      const QStringList& tokens, const QString& colormap, const QSize& size, const QString& title) {
  QImage image(size, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  paintMapGrid(p, image.rect(), {row}, expected, columnTitles, tokens, colormap, title);
  p.end();
  return image;
}

attn::Result<QStringList> writeFramePngs(const std::vector<QImage>& frames, const QString& dir) {
  if (frames.empty()) return err(dir, "no frames to write");
  if (!QDir().mkpath(dir)) return err(dir, "cannot create the folder");
  QStringList paths;
  for (size_t i = 0; i < frames.size(); ++i) {
    const QString path = QDir(dir).filePath(QStringLiteral("frame_%1.png").arg(i, 4, 10, QChar('0')));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !frames[i].save(&file, "PNG") || !file.commit())
      return err(path, QString("cannot write (%1)").arg(file.errorString()));
    paths << path;
  }
  return paths;
}

QString imageMagickProgram() {
  for (const char* name : {"convert", "magick"})
    if (const QString p = QStandardPaths::findExecutable(QString::fromLatin1(name)); !p.isEmpty()) return p;
  return {};
}

attn::Status writeGifWithImageMagick(const QStringList& pngs, const QString& gifPath, int delayMs) {
  const QString program = imageMagickProgram();
  if (program.isEmpty())
    return err(gifPath, "ImageMagick (convert) is not installed; the PNG frames were written instead");
  if (pngs.isEmpty()) return err(gifPath, "no frames to assemble");
  // Write beside the target and rename, so a failed run leaves no partial GIF.
  const QString tmp = gifPath + QStringLiteral(".part.gif");
  QStringList args{QStringLiteral("-delay"), QString::number(std::max(1, delayMs / 10)), QStringLiteral("-loop"),
                   QStringLiteral("0")};
  args << pngs << tmp;
  QProcess proc;
  proc.start(program, args);
  if (!proc.waitForFinished(120000) || proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0) {
    proc.kill();
    QFile::remove(tmp);
    return err(gifPath, QString("ImageMagick failed: %1").arg(QString::fromLocal8Bit(proc.readAllStandardError()).trimmed()));
  }
  QFile::remove(gifPath);
  if (!QFile::rename(tmp, gifPath)) {
    QFile::remove(tmp);
    return err(gifPath, "cannot write");
  }
  return attn::okStatus();
}

}  // namespace attn::ui
