#pragma once
// Umbrella header of the training engine.
#include "attn/train/demonstrations.h"
#include "attn/train/induction_scores.h"
#include "attn/train/initial_state.h"
#include "attn/train/tasks.h"
#include "attn/train/tiny_model.h"
#include "attn/train/train_config.h"
#include "attn/train/trainer.h"
