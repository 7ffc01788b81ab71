/* advisor-strings.h: the advisor tree's texts, for xgettext
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Generated from data/advisor.json by data/advisor-strings.py; do not
 * edit.  Never compiled: po/POTFILES.in lists it so that the texts reach
 * po/headroom.pot, and hr-advisor.c translates them as it loads the tree.
 */

/* Translators: the advisor's question "workload" */
N_("What will you run?");
/* Translators: an answer to the advisor's question "workload" */
N_("Train from scratch");
/* Translators: an answer to the advisor's question "workload" */
N_("Fine-tune");
/* Translators: an answer to the advisor's question "workload" */
N_("Inference");
/* Translators: the advisor's question "usage" */
N_("Long-term, high-frequency use?");
/* Translators: help for the advisor's question "usage" */
N_("The DreamerV3 GPU guide buys a card for 18 hours a day over the long term and rents for "
   "occasional use.");
/* Translators: an answer to the advisor's question "usage" */
N_("Yes: most of the day, for months");
/* Translators: an answer to the advisor's question "usage" */
N_("Some hours most days");
/* Translators: an answer to the advisor's question "usage" */
N_("No: now and then");
/* Translators: the advisor's question "prefer" */
N_("Buy or rent?");
/* Translators: an answer to the advisor's question "prefer" */
N_("Whichever costs less for my use");
/* Translators: an answer to the advisor's question "prefer" */
N_("Buy a card");
/* Translators: an answer to the advisor's question "prefer" */
N_("Rent in the cloud");
/* Translators: the advisor's question "budget" */
N_("Sufficient budget?");
/* Translators: help for the advisor's question "budget" */
N_("The DreamerV3 GPU guide, section 6: under $1,100 a used RTX 3090; $1,600-2,200 an RTX "
   "4090; $2,200-2,800 an RTX 5090D. For world models it puts memory first, then compute: the "
   "most memory the budget buys, then the most throughput; more money never buys a smaller or "
   "slower card.");
/* Translators: an answer to the advisor's question "budget" */
N_("Tight: under $1,100");
/* Translators: an answer to the advisor's question "budget" */
N_("No: up to about $2,200");
/* Translators: an answer to the advisor's question "budget" */
N_("Yes: up to about $2,800");
/* Translators: an answer to the advisor's question "budget" */
N_("Lab or team budget");
/* Translators: the advisor's question "runs" */
N_("Several seeds or sweeps in parallel?");
/* Translators: help for the advisor's question "runs" */
N_("The DreamerV3 GPU guide, section 4: run independent seeds one per card rather than split "
   "one run.");
/* Translators: an answer to the advisor's question "runs" */
N_("One run at a time");
/* Translators: an answer to the advisor's question "runs" */
N_("Several at once");
/* Translators: the advisor's question "features" */
N_("Need data-centre features (ECC, NVLink)?");
/* Translators: an answer to the advisor's question "features" */
N_("No, a desktop card is fine");
/* Translators: an answer to the advisor's question "features" */
N_("Yes");
/* Translators: the advisor's question "stack" */
N_("Does your code run on AMD cards (ROCm)?");
/* Translators: help for the advisor's question "stack" */
N_("Much research code (flash-attn, custom CUDA kernels) runs on NVIDIA cards only.");
/* Translators: an answer to the advisor's question "stack" */
N_("NVIDIA (CUDA) only");
/* Translators: an answer to the advisor's question "stack" */
N_("AMD works too");
/* Translators: the advisor's recommendation "recommend" */
N_("GPUs that fit, cheapest per finished run first");
