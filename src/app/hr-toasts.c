/* hr-toasts.c: toasts shown one after the other, each once the one
 * before it has left
 *
 * libadwaita before 1.3 frees a toast's bookkeeping when its hide
 * animation ends and leaves its show animation connected to it
 * (adw-toast-overlay.c at 1.2.2: free_toast_info() does not disconnect
 * show_done_cb(); fixed by commit 1674ebc98de7, "toast-overlay: Prevent
 * show_done from firing after hide_done", first in 1.3.rc).  A toast
 * shown while the one before it still hides slides in for
 * REPLACE_DURATION, 500 ms, and hides in HIDE_DURATION, 300 ms: one
 * dismissed in its first 200 ms (its button clicked, as soon as it is
 * there) is freed before its show animation ends, which then writes to
 * freed memory.  Given the overlay one toast at a time, and the next
 * only once the one before has gone (its AdwToast finalized with the
 * overlay's record of it), every toast slides in for SHOW_DURATION,
 * 300 ms, as long as it takes to hide.  That is not enough alone: a
 * toast dismissed in the frame it came in ends both animations in one
 * frame, and GTK runs the newer tick callback, the hide's, first.  So a
 * toast is not let go before its show animation has ended: a
 * "dismissed" that comes earlier (its button, its close button, Escape)
 * is held back, and given to the overlay the frame after the show
 * animation's last.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-toasts"

#include "hr-toasts.h"

/* How long after its "dismissed" a toast may take to leave before the
 * next is shown anyway: its hide animation is 300 ms (above). */
#define LEAVE_TIMEOUT_MS 1000
/* The longest show animation, REPLACE_DURATION (adw-toast-overlay.c at
 * 1.2.2), in µs of frame time. */
#define SHOW_ANIMATION_US (500 * G_TIME_SPAN_MILLISECOND)

typedef struct {
  AdwToastOverlay *overlay;
  GQueue           waiting;   /* AdwToast, owned */
  AdwToast        *showing;   /* weak: the overlay owns it */
  gulong           dismissed_id;
  guint            next_source;
  guint            leave_source;
  gboolean         destroyed;
  /* the toast shown, while it slides in */
  gint64           shown_at;  /* frame time */
  guint            tick_id;
  guint            settle_source;
  gboolean         settled;   /* its show animation has ended */
  gboolean         held_back; /* dismissed before that */
} HrToasts;

static void show_next (HrToasts *q);

static void
stop_watching_show (HrToasts *q)
{
  if (q->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (q->overlay), q->tick_id);
  q->tick_id = 0;
  g_clear_handle_id (&q->settle_source, g_source_remove);
}

static void
forget_showing (HrToasts *q)
{
  stop_watching_show (q);
  g_clear_handle_id (&q->leave_source, g_source_remove);
  q->showing = NULL;
  q->dismissed_id = 0;
  q->held_back = FALSE;
}

/* The show animation has ended: a dismissal held back goes through. */
static void
settle (HrToasts *q)
{
  stop_watching_show (q);
  q->settled = TRUE;
  if (q->held_back && q->showing != NULL)
    {
      q->held_back = FALSE;
      /* adw_toast_dismiss() would see the toast taken off its overlay by
       * the first emission and do nothing: emitted again, for the
       * overlay's handler */
      g_signal_emit_by_name (q->showing, "dismissed");
    }
}

static gboolean
settle_cb (gpointer user_data)
{
  HrToasts *q = user_data;

  q->settle_source = 0;
  settle (q);
  return G_SOURCE_REMOVE;
}

/* The frame whose time ends the show animation ends it in its update
 * phase, and the idle after that frame settles. */
static gboolean
show_tick_cb (GtkWidget     *overlay,
              GdkFrameClock *clock,
              gpointer       user_data)
{
  HrToasts *q = user_data;

  if (gdk_frame_clock_get_frame_time (clock) < q->shown_at + SHOW_ANIMATION_US)
    return G_SOURCE_CONTINUE;
  q->tick_id = 0;
  if (q->settle_source == 0)
    q->settle_source = g_idle_add (settle_cb, q);
  return G_SOURCE_REMOVE;
}

/* Unmapped, the overlay skips its animations to their end. */
static void
on_overlay_unmap_cb (GtkWidget *overlay,
                     HrToasts  *q)
{
  if (q->showing != NULL && !q->settled)
    settle (q);
}

static gboolean
next_cb (gpointer user_data)
{
  HrToasts *q = user_data;

  q->next_source = 0;
  show_next (q);
  return G_SOURCE_REMOVE;
}

static void
schedule_next (HrToasts *q)
{
  if (q->next_source == 0 && !q->destroyed && q->waiting.length > 0)
    q->next_source = g_idle_add (next_cb, q);
}

/* The toast shown has gone: its record, widget and animations with it. */
static void
toast_gone_cb (gpointer  user_data,
               GObject  *where_the_toast_was)
{
  HrToasts *q = user_data;

  forget_showing (q);
  schedule_next (q);
}

static gboolean
leave_timeout_cb (gpointer user_data)
{
  HrToasts *q = user_data;

  q->leave_source = 0;
  /* Still held somewhere past its hide: show the next all the same. */
  if (q->showing != NULL)
    {
      g_signal_handler_disconnect (q->showing, q->dismissed_id);
      g_object_weak_unref (G_OBJECT (q->showing), toast_gone_cb, q);
      forget_showing (q);
    }
  schedule_next (q);
  return G_SOURCE_REMOVE;
}

static void
on_dismissed_cb (AdwToast *toast,
                 HrToasts *q)
{
  if (!q->settled)
    {
      /* before the overlay's own handler, which would hide it */
      g_signal_stop_emission_by_name (toast, "dismissed");
      q->held_back = TRUE;
      return;
    }
  if (q->leave_source == 0)
    q->leave_source = g_timeout_add (LEAVE_TIMEOUT_MS, leave_timeout_cb, q);
}

static void
show_next (HrToasts *q)
{
  AdwToast *toast;

  if (q->showing != NULL || q->destroyed)
    return;
  toast = g_queue_pop_head (&q->waiting);
  if (toast == NULL)
    return;
  q->showing = toast;
  g_object_weak_ref (G_OBJECT (toast), toast_gone_cb, q);
  q->dismissed_id = g_signal_connect (toast, "dismissed", G_CALLBACK (on_dismissed_cb), q);
  q->settled = FALSE;
  q->held_back = FALSE;
  adw_toast_overlay_add_toast (q->overlay, toast);
  /* The show animation started at this frame time or before (it read
   * the frame clock first); unmapped, it did not run. */
  if (!gtk_widget_get_mapped (GTK_WIDGET (q->overlay)))
    {
      q->settled = TRUE;
      return;
    }
  q->shown_at = gdk_frame_clock_get_frame_time (gtk_widget_get_frame_clock (GTK_WIDGET (q->overlay)));
  q->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (q->overlay), show_tick_cb, q, NULL);
}

static void
on_overlay_destroy_cb (GtkWidget *overlay,
                       HrToasts  *q)
{
  q->destroyed = TRUE;
  stop_watching_show (q);
  g_clear_handle_id (&q->next_source, g_source_remove);
  g_queue_clear_full (&q->waiting, g_object_unref);
}

static void
hr_toasts_free (gpointer data)
{
  HrToasts *q = data;

  if (q->showing != NULL)
    {
      g_signal_handler_disconnect (q->showing, q->dismissed_id);
      g_object_weak_unref (G_OBJECT (q->showing), toast_gone_cb, q);
    }
  forget_showing (q);
  g_clear_handle_id (&q->next_source, g_source_remove);
  g_queue_clear_full (&q->waiting, g_object_unref);
  g_free (q);
}

void
hr_toasts_add (AdwToastOverlay *overlay,
               AdwToast        *toast)
{
  HrToasts *q;

  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (ADW_IS_TOAST (toast));

  q = g_object_get_data (G_OBJECT (overlay), "hr-toasts");
  if (q == NULL)
    {
      q = g_new0 (HrToasts, 1);
      q->overlay = overlay;
      g_queue_init (&q->waiting);
      g_object_set_data_full (G_OBJECT (overlay), "hr-toasts", q, hr_toasts_free);
      g_signal_connect (overlay, "destroy", G_CALLBACK (on_overlay_destroy_cb), q);
      g_signal_connect (overlay, "unmap", G_CALLBACK (on_overlay_unmap_cb), q);
    }
  if (q->destroyed)
    {
      g_object_unref (toast);
      return;
    }
  /* the toast shown, again: the overlay starts its timeout over */
  if (toast == q->showing)
    {
      if (q->held_back)
        g_object_unref (toast);
      else
        adw_toast_overlay_add_toast (overlay, toast);
      return;
    }
  g_queue_push_tail (&q->waiting, toast);
  show_next (q);
}
