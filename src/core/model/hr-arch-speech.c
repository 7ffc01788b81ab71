/* hr-arch-speech.c: speech encoders, what their training step saves
 *
 * Two families, as torchaudio 0.13.1 builds them (pytorch/audio
 * @b90d7988, v0.13.1):
 *
 * - wav2vec 2.0 and HuBERT (torchaudio/models/wav2vec2/components.py,
 *   model.py wav2vec2_model; the same graph as transformers'
 *   Wav2Vec2ForCTC / HubertForCTC): seven 1-D convolutions over the
 *   waveform (ConvLayerBlock: conv, GroupNorm on the first only or
 *   LayerNorm on each, GELU), the feature projection (LayerNorm, Linear,
 *   Dropout), the convolutional positional embedding (a grouped Conv1d of
 *   kernel 128 under weight_norm, GELU), the transformer layers
 *   (SelfAttention written out: q·k, max, softmax, dropout, ·v; post-LN
 *   for "base", pre-LN for "large") and a linear CTC head.
 * - Conformer (torchaudio/models/conformer.py ConformerLayer): two
 *   half-step feed-forward modules, nn.MultiheadAttention, the
 *   convolution module (pointwise conv, GLU, depthwise conv, BatchNorm1d,
 *   SiLU, pointwise conv) and a final LayerNorm, on log-mel frames whose
 *   time axis torchaudio's _TimeReduction (models/rnnt.py) folds by 4
 *   into an input Linear, with a linear CTC head.
 *
 * What each op saves is autograd's formula for it (derivatives.yaml, as
 * hr-arch.c cites): a convolution its input whenever a gradient is
 * wanted, a linear its input when its weight trains, layer_norm and
 * group_norm their input with a mean and rstd per row, GELU and SiLU
 * their input, GLU its input, softmax and log_softmax their result, a
 * matmul both operands, max(dim) its int64 indices, native_dropout a
 * one-byte mask, batch_norm its input and two fp32 statistics per
 * channel.  Under autocast layer_norm, group_norm, softmax and
 * log_softmax are on the fp32 list: their input is cast to fp32 (the cast
 * copy is what is saved) and their output is fp32; a linear or a
 * convolution given an fp32 input saves its own 16-bit copy, one per
 * call (autocast caches only the casts of weights).
 *
 * The CPU trace (data/probe/headroom_trace_torch.py) of these graphs is
 * the walk's test (tests/trace/test-trace-oracle.py).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-arch"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-arch.h"

/* The CUDA caching allocator's 512-byte block (hr-arch.c alloc_round) */
#define SPEECH_ALLOC_BLOCK 512.0

typedef struct {
  const HrArch    *a;
  const HrArchRun *r;
  HrArchResult    *res;
  gboolean         train;      /* the current region's weights train */
  gboolean         grad;       /* a gradient flows through the current region */
  double           e;          /* activation bytes */
  double           e32;        /* bytes of autocast's fp32 outputs */
  /* the current block */
  guint            block;
  gboolean         ckpt;
  double           block_input;
  double           block_recompute;
  double           block_transient;
  guint64          block_params;
} Sp;

static HrArchBlock *
sp_block (Sp *S)
{
  return &g_array_index (S->res->blocks, HrArchBlock, S->block);
}

static void
sp_params (Sp      *S,
           guint64  n)
{
  S->res->params += n;
}

/* @bytes per sample saved for the backward pass; @scores of them the
 * attention's s x s matrices */
static void
sp_save_scores (Sp     *S,
                double  bytes,
                double  scores)
{
  HrArchBlock *b = sp_block (S);

  if (bytes <= 0)
    return;
  g_array_append_val (S->res->saved_sizes, bytes);
  b->saved += bytes;
  b->scores += scores;
  S->res->saved += bytes;
  S->res->scores += scores;
  if (S->ckpt)
    S->block_recompute += bytes;
  else
    {
      b->kept += bytes;
      S->res->kept += bytes;
    }
}

static void
sp_save (Sp     *S,
         double  bytes)
{
  sp_save_scores (S, bytes, 0);
}

/* bytes saved once per step, whatever the batch */
static void
sp_save_fixed (Sp     *S,
               double  bytes)
{
  S->res->fixed_saved += bytes;
  S->res->fixed_rounding += ceil (bytes / SPEECH_ALLOC_BLOCK) * SPEECH_ALLOC_BLOCK - bytes;
}

static void
sp_fwd (Sp     *S,
        double  bytes)
{
  S->res->forward_peak = MAX (S->res->forward_peak, bytes);
}

static void
sp_begin (Sp         *S,
          gboolean    checkpointable,
          double      input,
          const char *name)
{
  HrArchBlock b = { 0 };

  b.name = g_strdup (name);
  b.checkpointed = checkpointable && S->r->recompute && S->grad;
  g_array_append_val (S->res->blocks, b);
  S->block = S->res->blocks->len - 1;
  S->ckpt = b.checkpointed;
  S->block_input = input;
  S->block_recompute = 0;
  S->block_transient = 0;
  S->block_params = S->res->params;
  if (S->ckpt)
    {
      /* torch.utils.checkpoint keeps the block's input until the
       * backward pass runs the block again */
      sp_block (S)->kept += input;
      S->res->kept += input;
    }
}

static void
sp_end (Sp    *S,
        guint  channels,
        guint  frames)
{
  HrArchBlock *b = sp_block (S);

  b->channels = channels;
  b->height = 1;
  b->width = frames;
  b->params = S->res->params - S->block_params;
  if (S->ckpt)
    S->res->recompute_peak = MAX (S->res->recompute_peak,
                                  S->block_recompute + S->block_input + S->block_transient);
  S->ckpt = FALSE;
}

/* What a linear layer or a convolution keeps of an input of @n elements
 * of @eb bytes, read by @calls layers (q, k and v read one input): the
 * input once, or under autocast one 16-bit copy per call. */
static void
sp_matmul_input (Sp     *S,
                 double  n,
                 double  eb,
                 guint   calls)
{
  if (S->r->autocast && eb > S->e)
    sp_save (S, calls * n * S->e);
  else
    sp_save (S, n * eb);
}

/* A linear layer on @rows rows of @in features (of @eb bytes) into @out:
 * its input kept when its weight trains */
static void
sp_linear (Sp      *S,
           double   rows,
           guint    in,
           guint    out,
           double   eb,
           gboolean bias,
           guint    calls)
{
  sp_params (S, ((guint64) in * out + (bias ? out : 0)) * calls);
  if (S->train)
    sp_matmul_input (S, rows * in, eb, calls);
  sp_fwd (S, rows * (in * eb + out * S->e));
}

/* layer_norm over @rows rows of @width: its fp32 (cast) input, a mean and
 * an rstd per row */
static void
sp_layer_norm (Sp     *S,
               double  rows,
               guint   width)
{
  sp_params (S, 2 * (guint64) width);
  if (S->grad)
    sp_save (S, rows * width * S->e32 + 2.0 * rows * 4.0);
}

/* native_dropout: a one-byte mask per element; p = 0 returns its input */
static gboolean
sp_dropout (Sp     *S,
            double  n,
            double  p)
{
  if (p <= 0)
    return FALSE;
  if (S->grad)
    sp_save (S, n);
  return TRUE;
}

/* The attention of @t frames, @width channels in @heads heads, from q, k,
 * v made (of e bytes); @max_trick: torchaudio's weights - weights.max()
 * (the int64 indices of the max); @scaled_q: q scaled before the matmul
 * (saved instead of q) */
static void
sp_attention (Sp     *S,
              double  t,
              guint   width,
              guint   heads,
              double  p,
              gboolean max_trick)
{
  double e = S->e, e32 = S->e32;
  double qkv = 3.0 * t * width * e;
  double scores = (double) heads * t * t;

  if (!S->grad)
    {
      sp_fwd (S, qkv + 2.0 * scores * e32);
      return;
    }
  if (S->r->eager_attention)
    {
      /* the math path: the scaled q and k (the q·k matmul), v, the
       * softmax's fp32 result, dropout's mask and the probabilities the
       * matmul with v reads: dropout's output, or under autocast its
       * 16-bit copy (the softmax's result itself when p = 0 and nothing
       * is cast) */
      double kept = scores * e32;

      if (p > 0)
        kept += scores + scores * (S->r->autocast ? e : e32);
      else if (S->r->autocast)
        kept += scores * e;
      if (max_trick)
        sp_save (S, heads * t * 8.0);
      sp_save_scores (S, qkv + kept, kept);
      /* bmm's gradient of the probabilities and softmax's of the scores,
       * alive together in the backward pass */
      if (S->ckpt)
        S->block_transient = MAX (S->block_transient, 2.0 * scores * e32);
      else
        {
          HrArchPeak pk = { S->res->saved, S->res->kept, 2.0 * scores * e32, 0,
                            "attention gradients" };

          g_array_append_val (S->res->peaks, pk);
        }
      sp_fwd (S, qkv + 2.0 * scores * e32);
    }
  else
    {
      /* scaled_dot_product_attention's efficient kernels: q, k, v, the
       * output and a logsumexp per head and query (hr-arch.c) */
      sp_save (S, qkv + t * width * e + 4.0 * heads * t);
      sp_fwd (S, qkv + t * width * e);
    }
  {
    HrArchBlock *b = sp_block (S);

    b->tokens = MAX (b->tokens, (guint) t);
    b->attn_heads = MAX (b->attn_heads, heads);
    S->res->max_tokens = MAX (S->res->max_tokens, (guint) t);
  }
}

/* The CTC head: a linear to the vocabulary, log_softmax in fp32
 * (transformers' Wav2Vec2ForCTC passes dtype=torch.float32) and
 * ctc_loss, which keeps the log-probabilities, the targets (int64), its
 * log_alpha (T x (2S+1), fp32) and the loss per sample
 * (aten/src/ATen/native/LossCTC.cpp ctc_loss_cpu_template, and
 * LossCTC.cu's; transformers runs the native kernel with cuDNN off). */
static void
sp_ctc_head (Sp     *S,
             double  t,
             guint   width,
             double  eb)
{
  guint vocab = S->r->classes > 0 ? S->r->classes : S->a->classes;
  /* the labels per clip: the trace's, or half the frames, a bound for
   * character transcripts (CTC needs S <= T; read English runs near 15
   * characters a second against the encoder's 50 frames) */
  double labels = floor (t / 2);

  sp_begin (S, FALSE, t * width * eb, "CTC head");
  sp_linear (S, t, width, vocab, eb, TRUE, 1);
  if (S->grad)
    {
      sp_save (S, t * vocab * 4.0);
      sp_save (S, labels * 8.0 + t * (2.0 * labels + 1) * 4.0 + 2 * 4.0);
    }
  sp_end (S, vocab, (guint) t);
  S->res->output = t * vocab * 4.0;
}

/* ------------------------------------------------------------------ */
/* wav2vec 2.0 / HuBERT                                                */

static guint
w2v_conv_layers (const HrArch *a,
                 guint        *dim,
                 guint        *kernel,
                 guint        *stride)
{
  /* fairseq's conv_feature_layers, [(512, 10, 5)] + [(512, 3, 2)] * 4 +
   * [(512, 2, 2)] * 2 (torchaudio components.py _get_feature_extractor;
   * transformers' Wav2Vec2Config conv_dim, conv_kernel, conv_stride) */
  static const guint k0[] = { 10, 3, 3, 3, 3, 2, 2 };
  static const guint s0[] = { 5, 2, 2, 2, 2, 2, 2 };
  guint n = a->n_conv_layers > 0 ? a->n_conv_layers : G_N_ELEMENTS (k0);

  for (guint i = 0; i < n; i++)
    {
      dim[i] = a->n_conv_layers > 0 && a->conv_dim[i] > 0 ? a->conv_dim[i] : 512;
      kernel[i] = a->n_conv_layers > 0 ? a->conv_kernel[i] : k0[i];
      stride[i] = a->n_conv_layers > 0 ? a->conv_stride[i] : s0[i];
    }
  return n;
}

static guint
conv_frames (guint length,
             guint kernel,
             guint stride)
{
  return length < kernel ? 0 : (length - kernel) / stride + 1;
}

static guint
w2v_frames (const HrArch *a,
            guint         samples)
{
  guint dim[HR_ARCH_MAX_STAGES], kernel[HR_ARCH_MAX_STAGES], stride[HR_ARCH_MAX_STAGES];
  guint n = w2v_conv_layers (a, dim, kernel, stride);
  guint l = samples;

  for (guint i = 0; i < n; i++)
    l = conv_frames (l, kernel[i], stride[i]);
  return MAX (1, l);
}

/* The feature encoder; returns the bytes of an element of its output. */
static double
w2v_feature_encoder (Sp    *S,
                     guint  samples,
                     guint *channels)
{
  const HrArch *a = S->a;
  guint dim[HR_ARCH_MAX_STAGES], kernel[HR_ARCH_MAX_STAGES], stride[HR_ARCH_MAX_STAGES];
  guint n = w2v_conv_layers (a, dim, kernel, stride);
  gboolean trains = S->r->trainable && !a->freeze_feature_encoder;
  gboolean grad = S->r->grad && trains;
  double eb = S->r->input_bytes > 0 ? S->r->input_bytes : 4.0;
  guint in = 1, l = samples;
  gboolean save_train = S->train, save_grad = S->grad;

  /* frozen (Wav2Vec2ForCTC.freeze_feature_encoder(), torchaudio's
   * requires_grad_(False)): the waveform needs no gradient, the weights
   * none: nothing is saved */
  S->train = grad;
  S->grad = grad;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("feature encoder conv %u", i + 1);
      guint out = conv_frames (l, kernel[i], stride[i]);
      double elems = (double) dim[i] * out;
      gboolean group_norm = !a->feat_extract_layer_norm && i == 0;

      sp_begin (S, TRUE, (double) in * l * eb, name);
      sp_params (S, (guint64) in * dim[i] * kernel[i] + (a->conv_bias ? dim[i] : 0));
      if (S->grad)
        sp_matmul_input (S, (double) in * l, eb, 1);
      sp_fwd (S, (double) in * l * eb + elems * S->e);
      eb = S->e;
      if (group_norm || a->feat_extract_layer_norm)
        {
          /* GroupNorm(512 groups) or the transposed LayerNorm: the fp32
           * input, a mean and rstd per group (GroupNorm) or frame */
          sp_params (S, 2 * (guint64) dim[i]);
          if (S->grad)
            sp_save (S, elems * S->e32 + 2.0 * 4.0 * (group_norm ? dim[i] : out));
          eb = S->e32;
        }
      /* GELU keeps its input */
      if (S->grad)
        sp_save (S, elems * eb);
      sp_end (S, dim[i], out);
      in = dim[i];
      l = out;
    }
  S->train = save_train;
  S->grad = save_grad;
  *channels = in;
  return eb;
}

static void
w2v_layer (Sp     *S,
           guint   index,
           double  t,
           double *x_eb)
{
  const HrArch *a = S->a;
  guint d = a->hidden_size, f = a->intermediate_size, h = a->num_attention_heads;
  double e = S->e, e32 = S->e32;
  double td = t * d;
  g_autofree char *name = g_strdup_printf ("layer %u", index + 1);
  double in_eb;

  sp_begin (S, TRUE, td * *x_eb, name);
  if (a->do_stable_layer_norm)
    {
      sp_layer_norm (S, t, d);
      in_eb = e32;
    }
  else
    in_eb = *x_eb;
  /* q, k, v from one input; q is scaled (a new tensor) before the
   * matmul with k */
  sp_linear (S, t, d, d, in_eb, TRUE, 3);
  sp_attention (S, t, d, h, a->attention_dropout, TRUE);
  sp_linear (S, t, d, d, e, TRUE, 1);
  sp_dropout (S, td, a->hidden_dropout);
  *x_eb = MAX (*x_eb, e);
  if (!a->do_stable_layer_norm)
    {
      /* post-LN: layer_norm, then x + ffn(x), then final_layer_norm */
      sp_layer_norm (S, t, d);
      in_eb = e32;
    }
  else
    {
      sp_layer_norm (S, t, d);
      in_eb = e32;
    }
  sp_linear (S, t, d, f, in_eb, TRUE, 1);
  if (S->grad)
    sp_save (S, t * f * e);           /* GELU's input */
  sp_dropout (S, t * f, a->activation_dropout);
  sp_linear (S, t, f, d, e, TRUE, 1);
  sp_dropout (S, td, a->hidden_dropout);
  sp_fwd (S, td * (*x_eb + e) + 2.0 * t * f * e);
  if (!a->do_stable_layer_norm)
    {
      sp_layer_norm (S, t, d);
      *x_eb = e32;
    }
  sp_end (S, d, (guint) t);
}

static void
wav2vec2 (Sp *S)
{
  const HrArch *a = S->a;
  guint samples = MAX (1, S->r->samples);
  guint t = w2v_frames (a, samples);
  guint d = a->hidden_size, k = a->num_conv_pos_embeddings, g = a->num_conv_pos_embedding_groups;
  guint c;
  double eb, x_eb;

  eb = w2v_feature_encoder (S, samples, &c);

  /* the feature projection: LayerNorm, Linear, Dropout */
  sp_begin (S, FALSE, (double) t * c * eb, "feature projection");
  sp_layer_norm (S, t, c);
  sp_linear (S, t, c, d, S->e32, TRUE, 1);
  sp_dropout (S, (double) t * d, a->feat_proj_dropout);
  sp_end (S, d, t);

  /* the positional convolution: Conv1d(d, d, k, padding k / 2, groups g)
   * under weight_norm(dim=2), whose weight g * v / |v| is made each
   * forward and saved by the convolution once per step, with the norms
   * (_weight_norm_interface: 4 bytes per kernel tap); k even gives t + 1
   * outputs, the last one cut (num_remove), and GELU keeps all of them */
  sp_begin (S, FALSE, (double) t * d * S->e, "positional convolution");
  sp_params (S, (guint64) d * (d / g) * k + k + d);
  if (S->grad)
    {
      guint out = t + 2 * (k / 2) - k + 1;

      sp_save (S, (double) t * d * S->e);
      sp_save_fixed (S, (double) d * (d / g) * k * S->e + 4.0 * k);
      sp_save (S, (double) out * d * S->e);
    }
  sp_fwd (S, 3.0 * t * d * S->e + (double) d * (d / g) * k * S->e);
  x_eb = S->e;
  if (!a->do_stable_layer_norm)
    {
      /* base: layer_norm(x + pos) before the layers */
      sp_layer_norm (S, t, d);
      x_eb = S->e32;
    }
  sp_dropout (S, (double) t * d, a->hidden_dropout);
  sp_end (S, d, t);

  /* every layer: layerdrop skips a layer in some steps, and the step
   * that runs them all is the peak */
  for (guint i = 0; i < a->num_hidden_layers; i++)
    w2v_layer (S, i, t, &x_eb);

  if (a->do_stable_layer_norm)
    {
      sp_begin (S, FALSE, (double) t * d * x_eb, "final layer norm");
      sp_layer_norm (S, t, d);
      sp_end (S, d, t);
      x_eb = S->e32;
    }
  sp_ctc_head (S, t, d, x_eb);
}

/* ------------------------------------------------------------------ */
/* Conformer                                                           */

static guint
conformer_frames (const HrArch *a,
                  guint         samples,
                  guint         sample_rate)
{
  /* torchaudio.transforms.MelSpectrogram(hop_length, center=True):
   * samples / hop + 1 frames; _TimeReduction drops the frames past a
   * multiple of its stride */
  guint hop = MAX (1, sample_rate * MAX (1, a->frame_shift_ms) / 1000);
  guint frames = samples / hop + 1;

  return MAX (1, frames / MAX (1, a->time_reduction));
}

static void
conformer_ffn (Sp     *S,
               double  t,
               double *x_eb)
{
  const HrArch *a = S->a;
  guint d = a->hidden_size, f = a->intermediate_size;

  sp_layer_norm (S, t, d);
  sp_linear (S, t, d, f, S->e32, TRUE, 1);
  if (S->grad)
    sp_save (S, t * f * S->e);        /* SiLU's input */
  sp_dropout (S, t * f, a->hidden_dropout);
  sp_linear (S, t, f, d, S->e, TRUE, 1);
  sp_dropout (S, t * d, a->hidden_dropout);
  sp_fwd (S, t * d * (*x_eb + S->e) + 2.0 * t * f * S->e);
  *x_eb = MAX (*x_eb, S->e);
}

static void
conformer_layer (Sp     *S,
                 guint   index,
                 double  t,
                 double *x_eb)
{
  const HrArch *a = S->a;
  guint d = a->hidden_size, h = a->num_attention_heads, k = a->depthwise_kernel;
  double e = S->e;
  double td = t * d;
  g_autofree char *name = g_strdup_printf ("layer %u", index + 1);

  sp_begin (S, TRUE, td * *x_eb, name);
  conformer_ffn (S, t, x_eb);

  /* nn.MultiheadAttention: one packed in_proj, q divided by sqrt(d_head)
   * (F.multi_head_attention_forward, PyTorch 1.13.1) */
  sp_layer_norm (S, t, d);
  sp_linear (S, t, d, 3 * d, S->e32, TRUE, 1);
  sp_attention (S, t, d, h, a->hidden_dropout, FALSE);
  sp_linear (S, t, d, d, e, TRUE, 1);
  sp_dropout (S, td, a->hidden_dropout);
  *x_eb = MAX (*x_eb, e);

  /* the convolution module */
  sp_layer_norm (S, t, d);
  sp_params (S, (guint64) d * 2 * d + 2 * d);        /* pointwise conv, bias */
  if (S->grad)
    {
      sp_matmul_input (S, td, S->e32, 1);
      sp_save (S, 2.0 * td * e);                    /* GLU's input */
      sp_save (S, td * e);                          /* the depthwise conv's */
    }
  sp_params (S, (guint64) d * k + d);
  sp_params (S, 2 * (guint64) d);
  if (S->grad)
    {
      if (a->conv_group_norm)
        {
          /* GroupNorm(1 group): fp32 input, a mean and rstd per sample */
          sp_save (S, td * S->e32 + 2.0 * 4.0);
          sp_save (S, td * S->e32);                 /* SiLU's input */
          sp_matmul_input (S, td, S->e32, 1);       /* the pointwise conv's */
        }
      else
        {
          /* BatchNorm1d in training: its input, and the batch's mean and
           * inverse std per channel (fp32, once per step) */
          sp_save (S, td * e);
          sp_save_fixed (S, 2.0 * 4.0 * d);
          S->res->bn_layers++;
          sp_save (S, td * e);                      /* SiLU's input */
          sp_save (S, td * e);                      /* the pointwise conv's */
        }
    }
  sp_params (S, (guint64) d * d + d);
  sp_dropout (S, td, a->hidden_dropout);
  sp_fwd (S, td * (*x_eb + 3.0 * e));

  conformer_ffn (S, t, x_eb);
  sp_layer_norm (S, t, d);
  *x_eb = S->e32;
  sp_end (S, d, (guint) t);
}

static void
conformer (Sp *S)
{
  const HrArch *a = S->a;
  guint t = conformer_frames (a, MAX (1, S->r->samples), MAX (1, S->r->sample_rate));
  guint in = a->num_mel_bins * MAX (1, a->time_reduction);
  double eb = S->r->input_bytes > 0 ? S->r->input_bytes : 4.0;
  double x_eb;

  /* the log-mel frames come from the dataloader; _TimeReduction's
   * reshape keeps nothing, the input Linear its (folded) input */
  sp_begin (S, FALSE, (double) t * in * eb, "input projection");
  sp_linear (S, t, in, a->hidden_size, eb, TRUE, 1);
  sp_end (S, a->hidden_size, t);
  x_eb = S->e;

  for (guint i = 0; i < a->num_hidden_layers; i++)
    conformer_layer (S, i, t, &x_eb);
  sp_ctc_head (S, t, a->hidden_size, x_eb);
}


/* ------------------------------------------------------------------ */
/* Reading                                                             */


/* "conv_dim", "conv_kernel" or "conv_stride": one number per convolution
 * of the feature encoder */
static gboolean
read_conv_list (HrReader   *reader,
                const char *key,
                guint       max,
                guint      *out,
                guint      *n_layers)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return hr_reader_fail (reader, key, _("\"%s\" must be an array of integers"), key);
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0 || n > HR_ARCH_MAX_STAGES)
    return hr_reader_fail (reader, key, _("\"%s\" must list 1 to %u convolutions, not %u"),
                           key, HR_ARCH_MAX_STAGES, n);
  if (*n_layers != 0 && *n_layers != n)
    return hr_reader_fail (reader, key,
                           _("\"%s\" lists %u convolutions, but the other conv lists %u"),
                           key, n, *n_layers);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      double v;

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          (json_node_get_value_type (element) != G_TYPE_INT64 &&
           json_node_get_value_type (element) != G_TYPE_DOUBLE))
        return hr_reader_fail (reader, key, _("\"%s\" must be an array of integers"), key);
      v = json_node_get_double (element);
      if (v != floor (v) || v < 1 || v > max)
        return hr_reader_fail (reader, key,
                               _("\"%s\": element %u must be an integer from 1 to %u"), key,
                               i + 1, max);
      out[i] = (guint) v;
    }
  *n_layers = n;
  return TRUE;
}

static gboolean
read_count (HrReader   *reader,
            const char *key,
            guint64     min,
            guint64     max,
            guint      *out)
{
  guint64 v = *out;

  if (!hr_reader_uint (reader, key, FALSE, min, max, &v))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

gboolean
hr_arch_read_speech (HrReader *reader,
                     HrArch   *a)
{
  g_autofree char *norm = NULL;
  guint n_kernel = 0, n_stride = 0, n_dim = 0;

  g_return_val_if_fail (reader != NULL && a != NULL, FALSE);

  /* torchaudio's wav2vec2_base and Conformer defaults */
  a->num_conv_pos_embeddings = 128;
  a->num_conv_pos_embedding_groups = 16;
  a->freeze_feature_encoder = TRUE;
  a->num_mel_bins = 80;
  a->frame_shift_ms = 10;
  a->time_reduction = 4;
  a->depthwise_kernel = 31;

  if (!read_count (reader, "hidden_size", 1, 1 << 16, &a->hidden_size) ||
      !read_count (reader, "num_hidden_layers", 1, 1000, &a->num_hidden_layers) ||
      !read_count (reader, "num_attention_heads", 1, 4096, &a->num_attention_heads) ||
      !read_count (reader, "intermediate_size", 1, 1 << 20, &a->intermediate_size) ||
      !hr_reader_string (reader, "feat_extract_norm", FALSE, &norm) ||
      !hr_reader_bool (reader, "conv_bias", &a->conv_bias) ||
      !hr_reader_bool (reader, "do_stable_layer_norm", &a->do_stable_layer_norm) ||
      !read_count (reader, "num_conv_pos_embeddings", 1, 4096, &a->num_conv_pos_embeddings) ||
      !read_count (reader, "num_conv_pos_embedding_groups", 1, 4096,
                   &a->num_conv_pos_embedding_groups) ||
      !read_conv_list (reader, "conv_kernel", 4096, a->conv_kernel, &n_kernel) ||
      !read_conv_list (reader, "conv_stride", 4096, a->conv_stride, &n_stride) ||
      !read_conv_list (reader, "conv_dim", 1 << 16, a->conv_dim, &n_dim) ||
      !hr_reader_bool (reader, "freeze_feature_encoder", &a->freeze_feature_encoder) ||
      !hr_reader_double (reader, "attention_dropout", FALSE, 0, 0.999, &a->attention_dropout) ||
      !hr_reader_double (reader, "activation_dropout", FALSE, 0, 0.999, &a->activation_dropout) ||
      !hr_reader_double (reader, "hidden_dropout", FALSE, 0, 0.999, &a->hidden_dropout) ||
      !hr_reader_double (reader, "feat_proj_dropout", FALSE, 0, 0.999, &a->feat_proj_dropout) ||
      !hr_reader_double (reader, "layerdrop", FALSE, 0, 0.999, &a->layerdrop) ||
      !read_count (reader, "num_mel_bins", 1, 4096, &a->num_mel_bins) ||
      !read_count (reader, "frame_shift_ms", 1, 1000, &a->frame_shift_ms) ||
      !read_count (reader, "time_reduction", 1, 64, &a->time_reduction) ||
      !read_count (reader, "depthwise_kernel", 1, 4095, &a->depthwise_kernel) ||
      !hr_reader_bool (reader, "conv_group_norm", &a->conv_group_norm))
    return FALSE;

  if (norm != NULL)
    {
      if (g_str_equal (norm, "layer"))
        a->feat_extract_layer_norm = TRUE;
      else if (!g_str_equal (norm, "group"))
        return hr_reader_fail (reader, "feat_extract_norm",
                               _("\"feat_extract_norm\" must be \"group\" or \"layer\", not "
                                 "\"%s\""), norm);
    }
  if (n_kernel != n_stride || (n_dim != 0 && n_dim != n_kernel))
    return hr_reader_fail (reader, n_kernel == 0 ? "conv_stride" : "conv_kernel",
                           _("\"conv_kernel\" and \"conv_stride\" (and \"conv_dim\", if given) "
                             "list one number per convolution of the feature encoder"));
  a->n_conv_layers = n_kernel;

  if (a->hidden_size == 0 || a->num_hidden_layers == 0 || a->num_attention_heads == 0 ||
      a->intermediate_size == 0)
    return hr_reader_fail (reader, "hidden_size",
                           _("a \"%s\" encoder needs \"hidden_size\", \"num_hidden_layers\", "
                             "\"num_attention_heads\" and \"intermediate_size\""),
                           hr_enum_to_nick (hr_arch_type_names, a->type));
  if (a->hidden_size % a->num_attention_heads != 0)
    return hr_reader_fail (reader, "num_attention_heads",
                           _("\"num_attention_heads\" (%u) must divide \"hidden_size\" (%u)"),
                           a->num_attention_heads, a->hidden_size);
  if (a->type == HR_ARCH_WAV2VEC2 && a->hidden_size % a->num_conv_pos_embedding_groups != 0)
    return hr_reader_fail (reader, "num_conv_pos_embedding_groups",
                           _("\"num_conv_pos_embedding_groups\" (%u) must divide "
                             "\"hidden_size\" (%u)"),
                           a->num_conv_pos_embedding_groups, a->hidden_size);
  if (a->type == HR_ARCH_CONFORMER && a->depthwise_kernel % 2 == 0)
    return hr_reader_fail (reader, "depthwise_kernel",
                           _("\"depthwise_kernel\" must be odd (torchaudio's Conformer pads "
                             "it to the same length), not %u"), a->depthwise_kernel);
  return TRUE;
}

/* ------------------------------------------------------------------ */

gboolean
hr_arch_is_speech (const HrArch *arch)
{
  g_return_val_if_fail (arch != NULL, FALSE);
  return arch->type == HR_ARCH_WAV2VEC2 || arch->type == HR_ARCH_CONFORMER;
}

guint64
hr_arch_frozen_params (const HrArch *arch)
{
  guint dim[HR_ARCH_MAX_STAGES], kernel[HR_ARCH_MAX_STAGES], stride[HR_ARCH_MAX_STAGES];
  guint64 n = 0;
  guint in = 1, layers;

  g_return_val_if_fail (arch != NULL, 0);

  if (arch->type != HR_ARCH_WAV2VEC2 || !arch->freeze_feature_encoder)
    return 0;
  /* the feature encoder's convolutions and norms, as w2v_feature_encoder
   * counts them */
  layers = w2v_conv_layers (arch, dim, kernel, stride);
  for (guint i = 0; i < layers; i++)
    {
      n += (guint64) in * dim[i] * kernel[i] + (arch->conv_bias ? dim[i] : 0);
      if (arch->feat_extract_layer_norm || i == 0)
        n += 2 * (guint64) dim[i];
      in = dim[i];
    }
  return n;
}

guint
hr_arch_speech_frames (const HrArch *arch,
                       guint         samples,
                       guint         sample_rate)
{
  g_return_val_if_fail (arch != NULL, 0);

  if (arch->type == HR_ARCH_WAV2VEC2)
    return w2v_frames (arch, MAX (1, samples));
  if (arch->type == HR_ARCH_CONFORMER)
    return conformer_frames (arch, MAX (1, samples), MAX (1, sample_rate));
  return 0;
}

void
hr_arch_walk_speech (const HrArch    *arch,
                     const HrArchRun *run,
                     HrArchResult    *result)
{
  Sp S = { 0 };

  g_return_if_fail (arch != NULL && run != NULL && result != NULL);
  g_return_if_fail (hr_arch_is_speech (arch));

  S.a = arch;
  S.r = run;
  S.res = result;
  S.train = run->trainable && run->grad;
  S.grad = run->grad;
  S.e = run->e;
  S.e32 = run->e32 > 0 ? run->e32 : run->e;

  if (arch->type == HR_ARCH_WAV2VEC2)
    wav2vec2 (&S);
  else
    conformer (&S);
}
