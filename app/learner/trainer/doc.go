// Package trainer is MetaClaw's slow loop: it trains the policy's LoRA
// adapter on a Tinker-compatible service from the samples the policy
// served, rewarded by the judge, and publishes each new sampler checkpoint
// to serving at once.
//
// # Rewards
//
// The serving side records one store.Sample per turn the policy answered
// (tokens, sampler log-probs, skill generation). The learner's judge
// scores turns as it always does; before choosing a batch the trainer
// copies each waiting sample's turn score into the sample
// (store.AdoptTurnScores), so there is no ordering between the two and no
// hook in the learner. A turn without a usable score (judge off or failed)
// leaves its sample unrewarded: it waits and is never trained as zero.
//
// # Groups and advantages
//
// With rl.group_size n > 1, each prompt of a batch gets n−1 extra
// responses sampled from the policy being served (same prompt tokens),
// stored as kind "extra" in the served sample's group. Every member of the
// group, the served response included, is then judged alike on the
// response alone (judge.ScoreResponse): the next turn only ever reacted to
// the served response, and mixing evidence kinds would bias every
// advantage in the group. The advantage of a member is its reward minus
// the group mean, divided by the group's standard deviation when
// rl.advantage_std is set (see Advantages for rewards that are all equal).
// A group with fewer than two judged members is skipped. With group size
// 1 (or without a judge or a codec to read extra responses) the batch's
// turn scores are centred and normalised together. The prompt's tokens get
// zero advantage; each sampled token gets its sample's advantage, lowered
// by the OPD penalty when opd.enabled (package opd).
//
// # Steps, checkpoints, recovery
//
// A step is forward_backward (rl.loss_fn, with the ppo/cispo clip
// thresholds), optim_step (Adam from rl.*), save_weights_for_sampler
// ("step-000042"), and every rl.checkpoint_every steps save_weights. The
// step row, its checkpoints and the trained mark of its samples are
// written in one transaction (store.FinishStep) after the service
// finished, so a step that dies midway leaves its samples waiting. Once
// forward_backward has been sent, any failure before that transaction
// drops the training model (its gradients or weights may already hold the
// batch): the next step creates a new model from the last state
// checkpoint, and steps done after that checkpoint are discarded and their
// samples wait again (store.DiscardStepsAfter), so no sample is lost or
// trained twice into the weights that survive. Full state is also saved
// when a training window closes, when learning is paused and at shutdown.
// At start the trainer resumes from rl.resume_from_ckpt the first time it
// sees that path, else from the latest state checkpoint of rl.model, else
// starts a fresh adapter.
//
// # Serving
//
// After each step the sampler checkpoint is stored as the serving
// checkpoint (store.SetServingCheckpoint) and handed to Options.Publish,
// so serving switches at once; serving never waits for training.
//
// # Scheduling
//
// Serve trains in mode rl as soon as rl.batch_size rewarded samples wait,
// and in madmax only while a training window (idle.Scheduler) is open.
// When the window closes or learning is paused, the step in flight
// finishes and the rest waits in the database. Samples of an older skill
// generation are marked stale and never trained (support/query). TrainStep
// runs one step now; `metaclaw train-step` asks the running app for one
// through the database (RequestTrainStep), as `metaclaw pause` does.
//
// The app imports this package; it imports store, store/config, idle and
// the learner's tinker and opd packages.
package trainer
