/* hr-prices-page.h: purchase and cloud prices, editable, in Preferences
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"

G_BEGIN_DECLS

#define HR_TYPE_PRICES_PAGE (hr_prices_page_get_type ())
G_DECLARE_FINAL_TYPE (HrPricesPage, hr_prices_page, HR, PRICES_PAGE, AdwPreferencesPage)

/* Every catalog GPU with its purchase price, cloud price per hour and the
 * date they were read.  An edit is saved at once as an entry of the user's
 * catalog that overrides the built-in one (which is never changed), and
 * ::changed is emitted after the default catalog is read again. */
GtkWidget *hr_prices_page_new        (void);

/* What editing the row does: a price of 0 means unknown (or not rented);
 * @as_of NULL means today. */
gboolean   hr_prices_page_set_prices (HrPricesPage *self,
                                      const char   *gpu_id,
                                      double        price_usd,
                                      double        cloud_usd_per_hour,
                                      const char   *as_of,
                                      GError      **error);
/* Back to the built-in prices: removes the user's override. */
gboolean   hr_prices_page_reset      (HrPricesPage *self,
                                      const char   *gpu_id,
                                      GError      **error);
/* Whether the row shows the "Custom" badge (the prices are the user's). */
gboolean   hr_prices_page_is_custom  (HrPricesPage *self,
                                      const char   *gpu_id);
/* The AdwExpanderRow of a GPU, or NULL. */
GtkWidget *hr_prices_page_get_row    (HrPricesPage *self,
                                      const char   *gpu_id);

G_END_DECLS
