// The Contribution graph dock, offscreen, on the GPT-2 and BERT fixtures: its edges are
// Model::flowRoutes' route; a new threshold or position traces the route again on the same
// importances (routeEdges) without a run; Cancel keeps the graph shown; BERT is refused with
// the core's message; clicking a head's edge selects that layer and head.
#include "attn_ui/routes/routes_panel.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QMouseEvent>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/routes/routes_view.h"

namespace attn::ui {
namespace {

using attn::models::RouteEdge;

std::shared_ptr<const attn::models::Model> openRoutesFixture(const char* name) {
  auto m = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

void expectSameRoute(const std::vector<RouteEdge>& got, const std::vector<RouteEdge>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(got[k].layer, want[k].layer);
    EXPECT_EQ(got[k].kind, want[k].kind);
    EXPECT_EQ(got[k].head, want[k].head);
    EXPECT_EQ(got[k].from, want[k].from);
    EXPECT_EQ(got[k].to, want[k].to);
    EXPECT_EQ(got[k].importance, want[k].importance);
  }
}

struct RoutesDock {
  ExplorerModel model;
  RoutesPanel panel{&model};
  std::shared_ptr<const attn::models::Model> m;

  explicit RoutesDock(const char* name, const char* text = "The cat sat on the mat because it was warm.") {
    panel.resize(1200, 700);
    panel.show();  // lays the graph out at that size
    m = openRoutesFixture(name);
    if (!m) return;
    model.setModel(m);
    model.setText(text);
    model.waitForIdle();
    QCoreApplication::processEvents();
  }
  void runAndWait() {
    panel.run();
    panel.waitForIdle();
  }
};

TEST(RoutesPanel, DrawsTheRouteModelFlowRoutesTraces) {
  RoutesDock dock("gpt2");
  ASSERT_NE(dock.m, nullptr);
  EXPECT_TRUE(dock.panel.edges().empty());
  dock.runAndWait();
  ASSERT_NE(dock.panel.routes(), nullptr) << dock.panel.status().toStdString();
  const auto& enc = dock.model.ownModelRun()->encoding;
  auto want = dock.m->flowRoutes(enc, {});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(dock.panel.position(), enc.size() - 1);
  EXPECT_DOUBLE_EQ(dock.panel.threshold(), 0.04);
  ASSERT_FALSE(want->edges.empty());
  expectSameRoute(dock.panel.edges(), want->edges);
  EXPECT_EQ(dock.panel.view()->figure().layers, dock.m->info().layers);
  EXPECT_EQ(dock.panel.view()->figure().tokens.size(), enc.size());
}

TEST(RoutesPanel, ANewThresholdOrPositionTracesAgainWithoutARun) {
  RoutesDock dock("gpt2");
  ASSERT_NE(dock.m, nullptr);
  dock.runAndWait();
  const auto routes = dock.panel.routes();
  ASSERT_NE(routes, nullptr);
  const size_t before = dock.panel.edges().size();
  dock.panel.setThreshold(0.2);
  EXPECT_FALSE(dock.panel.busy()) << "no new run";
  EXPECT_EQ(dock.panel.routes(), routes);
  const auto want = attn::models::routeEdges(*routes, routes->position, 0.2);
  EXPECT_LT(want.size(), before);
  expectSameRoute(dock.panel.edges(), want);
  dock.panel.setPosition(2);
  EXPECT_FALSE(dock.panel.busy());
  expectSameRoute(dock.panel.edges(), attn::models::routeEdges(*routes, 2, 0.2));
  auto direct = dock.m->flowRoutes(dock.panel.encoding(), {2, 0.2});
  ASSERT_TRUE(direct.ok());
  expectSameRoute(dock.panel.edges(), direct->edges);
}

TEST(RoutesPanel, CancelKeepsTheGraphShown) {
  RoutesDock dock("gpt2", "one two three");
  ASSERT_NE(dock.m, nullptr);
  dock.runAndWait();
  const auto routes = dock.panel.routes();
  ASSERT_NE(routes, nullptr);
  const auto edges = dock.panel.edges();
  dock.model.setText("a longer text, so that its graph would be another one");
  dock.model.waitForIdle();
  QCoreApplication::processEvents();
  dock.panel.run();
  EXPECT_TRUE(dock.panel.busy());
  dock.panel.cancel();
  dock.panel.waitForIdle();
  EXPECT_FALSE(dock.panel.busy());
  EXPECT_EQ(dock.panel.routes(), routes);
  expectSameRoute(dock.panel.edges(), edges);
  EXPECT_TRUE(dock.panel.status().contains("Cancelled")) << dock.panel.status().toStdString();
  dock.runAndWait();  // and a run that is not cancelled shows the new text
  ASSERT_NE(dock.panel.routes(), nullptr);
  EXPECT_NE(dock.panel.routes(), routes);
  EXPECT_EQ(dock.panel.encoding().ids, dock.model.ownModelRun()->encoding.ids);
}

TEST(RoutesPanel, RefusesABidirectionalModelWithTheCoresMessage) {
  RoutesDock dock("bert", "The cat [MASK] on the mat.");
  ASSERT_NE(dock.m, nullptr);
  const auto core = dock.m->flowRoutes(dock.model.ownModelRun()->encoding, {});
  ASSERT_FALSE(core.ok());
  EXPECT_EQ(dock.panel.status().toStdString(), core.error().message);
  dock.runAndWait();
  EXPECT_EQ(dock.panel.routes(), nullptr);
  EXPECT_TRUE(dock.panel.edges().empty());
  EXPECT_EQ(dock.panel.status().toStdString(), core.error().message);
}

TEST(RoutesPanel, ClickingAHeadsEdgeSelectsThatHead) {
  RoutesDock dock("gpt2");
  ASSERT_NE(dock.m, nullptr);
  dock.runAndWait();
  const auto& edges = dock.panel.edges();
  int pick = -1;
  for (size_t k = 0; k < edges.size(); ++k) {
    const RouteEdge& e = edges[k];
    if (e.kind != attn::models::RouteEdgeKind::Head || (e.layer == 0 && e.head == 0) || e.from == e.to)
      continue;
    if (pick < 0 || e.importance > edges[static_cast<size_t>(pick)].importance) pick = static_cast<int>(k);
  }
  ASSERT_GE(pick, 0) << "the route has a head edge between two tokens";
  dock.model.setCurrentLayerHead(0, 0);
  RoutesView* view = dock.panel.view();
  const QPointF at = view->edgeMiddle(pick);
  const int hit = view->edgeAt(at);
  ASSERT_GE(hit, 0);
  const RouteEdge e = edges[static_cast<size_t>(hit)];
  ASSERT_EQ(e.kind, attn::models::RouteEdgeKind::Head);
  EXPECT_TRUE(
      view->edgeText(hit).startsWith(QStringLiteral("Layer %1, head %2").arg(e.layer + 1).arg(e.head + 1)));
  QMouseEvent press(QEvent::MouseButtonPress, at, view->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
  QCoreApplication::sendEvent(view, &press);
  EXPECT_EQ(dock.model.currentLayer(), e.layer);
  EXPECT_EQ(dock.model.currentHead(), e.head);
  EXPECT_FALSE(e.layer == 0 && e.head == 0);
}

}  // namespace
}  // namespace attn::ui
