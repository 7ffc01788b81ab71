/* hr-key-test.h: keys pressed in a display test as GTK dispatches them
 *
 * GTK 4.8 has no public way to synthesize a key press, so a key is
 * "pressed" as GTK dispatches it to shortcuts: first the capture phase
 * from the window down to the focus widget (where the application's
 * accelerators sit), then the bubble phase from the focus widget up; the
 * first shortcut whose trigger is the key has its action activated.  Tab
 * moves the focus as GtkWindow's move-focus does.  (For the tests that
 * walk the window by keyboard: test-keyboard.c, test-keyboard-walk.c.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/Xlib.h>
#endif

static inline void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static inline void
wait_ms (guint ms)
{
  gint64 deadline = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
}

static inline gboolean
trigger_matches (GtkShortcutTrigger *trigger,
                 GtkShortcutTrigger *key)
{
  if (GTK_IS_ALTERNATIVE_TRIGGER (trigger))
    return trigger_matches (gtk_alternative_trigger_get_first (GTK_ALTERNATIVE_TRIGGER (trigger)),
                            key)
           || trigger_matches (gtk_alternative_trigger_get_second (GTK_ALTERNATIVE_TRIGGER (
                                                                    trigger)), key);
  return gtk_shortcut_trigger_equal (trigger, key);
}

/* The shortcuts of @controller, activated on its widget. */
static inline gboolean
activate_controller (GtkShortcutController *controller,
                     GtkShortcutTrigger    *key)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  /* the shortcut may close the widget's window (Escape) */
  g_autofree char *name = g_strdup (G_OBJECT_TYPE_NAME (widget));

  for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (controller)); k++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (controller), k);

      if (!GTK_IS_SHORTCUT (item)
          || !trigger_matches (gtk_shortcut_get_trigger (GTK_SHORTCUT (item)), key))
        continue;
      if (gtk_shortcut_action_activate (gtk_shortcut_get_action (GTK_SHORTCUT (item)),
                                        GTK_SHORTCUT_ACTION_EXCLUSIVE, widget,
                                        gtk_shortcut_get_arguments (GTK_SHORTCUT (item))))
        {
          if (g_getenv ("HR_TEST_DEBUG"))
            g_printerr ("# taken by %s\n", name);
          return TRUE;
        }
    }
  return FALSE;
}

static inline gboolean
activate_in (GtkWidget           *widget,
             GtkShortcutTrigger  *key,
             GtkPropagationPhase  phase)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      const char *name;

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller)
          || gtk_event_controller_get_propagation_phase (controller) != phase)
        continue;
      /* The root's lists of its descendants' managed shortcuts are
       * walked where those shortcuts live (their widgets, on the way up
       * from the focus), each on its own widget. */
      name = gtk_event_controller_get_name (controller);
      if (name != NULL && g_str_has_prefix (name, "gtk-shortcut-manager-"))
        continue;
      if (activate_controller (GTK_SHORTCUT_CONTROLLER (controller), key))
        return TRUE;
    }
  return FALSE;
}

static inline void activate_window (GtkWindow *window);

/* Presses @accelerator in @window; FALSE when nothing takes it. */
static inline gboolean
press (GtkWindow  *window,
       const char *accelerator)
{
  g_autoptr(GtkShortcutTrigger) key = gtk_shortcut_trigger_parse_string (accelerator);
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  gboolean taken = FALSE;

  g_assert_nonnull (key);
  /* The keys go to the window the user types in: one that lost the X
   * focus to another client gets it back first. */
  if (!gtk_window_is_active (window))
    activate_window (window);
  gtk_window_set_focus_visible (window, TRUE);
  for (GtkWidget *w = focus != NULL ? focus : GTK_WIDGET (window); w != NULL;
       w = gtk_widget_get_parent (w))
    g_ptr_array_add (chain, w);
  for (guint i = chain->len; i-- > 0 && !taken;)
    taken = activate_in (g_ptr_array_index (chain, i), key, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < chain->len && !taken; i++)
    taken = activate_in (g_ptr_array_index (chain, i), key, GTK_PHASE_BUBBLE)
            || (i == 0 && activate_in (g_ptr_array_index (chain, i), key, GTK_PHASE_TARGET));
  iterate ();
  return taken;
}

static inline GtkWidget *
focus_of (GtkWindow *window)
{
  return gtk_root_get_focus (GTK_ROOT (window));
}

/* Gives @window the keyboard, as clicking it or a window manager would:
 * Xvfb has no window manager, and GTK moves the focus within a window
 * only when the window is active. */
static inline void
activate_window (GtkWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  gtk_window_present (window);
  iterate ();
#ifdef GDK_WINDOWING_X11
  {
    GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
    GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (window));

    if (GDK_IS_X11_DISPLAY (display) && surface != NULL)
      {
        XSetInputFocus (gdk_x11_display_get_xdisplay (display),
                        gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
        XFlush (gdk_x11_display_get_xdisplay (display));
      }
  }
#endif
  while (!gtk_window_is_active (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_window_is_active (window));
  /* What the first key press does: focus rings from now on. */
  gtk_window_set_focus_visible (window, TRUE);
}

/* The focus is on a widget on screen, and it draws its focus ring. */
static inline gboolean
shows_focus (GtkWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && gtk_widget_is_drawable (focus) && gtk_widget_has_visible_focus (focus);
}

/* Tab, and the focus it lands on shows that it has it. */
static inline void
press_tab (GtkWindow *window)
{
  GtkWidget *focus;

  /* A key pressed shows the focus again, whatever hid it meanwhile (a
   * popover closing, the window losing the X focus for a moment): GTK's
   * window does this on every key press. */
  if (!gtk_window_is_active (window))
    activate_window (window);
  gtk_window_set_focus_visible (window, TRUE);
  if (!gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD))
    gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);   /* wraps round */
  iterate ();
  focus = focus_of (window);
  g_assert_nonnull (focus);
  if (!shows_focus (window))
    for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
      g_printerr ("# no visible focus in %s (%s) mapped %d\n", G_OBJECT_TYPE_NAME (w),
                  gtk_widget_get_name (w), gtk_widget_get_mapped (w));
  g_assert_true (shows_focus (window));
}

/* Whether @widget is, or is inside, @ancestor. */
static inline gboolean
within (GtkWidget *widget,
        GtkWidget *ancestor)
{
  return widget != NULL && (widget == ancestor || gtk_widget_is_ancestor (widget, ancestor));
}

/* Tab until the focus is in @target; at most @max presses. */
static inline void
tab_to (GtkWindow *window,
        GtkWidget *target,
        guint      max)
{
  for (guint i = 0; i < max && !within (focus_of (window), target); i++)
    {
      press_tab (window);
      if (g_getenv ("HR_TEST_DEBUG"))
        {
          GtkWidget *focus = focus_of (window);
          GtkWidget *parent = focus != NULL ? gtk_widget_get_parent (focus) : NULL;

          g_printerr ("# tab: %s %s in %s\n", focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "none",
                      ADW_IS_PREFERENCES_ROW (focus)
                        ? adw_preferences_row_get_title (ADW_PREFERENCES_ROW (focus)) : "",
                      parent != NULL ? G_OBJECT_TYPE_NAME (parent) : "none");
        }
    }
  g_assert_true (within (focus_of (window), target));
}

static inline GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (item, type) && gtk_widget_get_visible (GTK_WIDGET (item)))
        return GTK_WINDOW (item);
    }
  return NULL;
}

/* Tabs through @popover (a picker's, after a search) to its first row
 * and ticks it with Space, then pops it down: GtkPopover takes Escape
 * in a key controller, not a shortcut, which press() does not reach. */
static inline void
tick_first_row (GtkWindow *win,
                GtkWidget *popover)
{
  gboolean ticked = FALSE;

  for (guint i = 0; i < 10 && !ticked; i++)
    {
      GtkWidget *focus;

      g_assert_true (gtk_widget_child_focus (popover, GTK_DIR_TAB_FORWARD));
      iterate ();
      focus = focus_of (win);
      if (GTK_IS_LIST_BOX_ROW (focus) || GTK_IS_CHECK_BUTTON (focus))
        {
          g_assert_true (press (win, "space"));
          ticked = TRUE;
        }
    }
  g_assert_true (ticked);
  gtk_popover_popdown (GTK_POPOVER (popover));
  iterate ();
}
