"""NanoClaw turns: WhatsApp messages through the Claude Agent SDK."""


def T(id, group, sender, user, rel, acc=(), **kw):
    return dict(id=id, agent="nanoclaw", api="anthropic", group=group, sender=sender, user=user,
                relevant=list(rel), acceptable=list(acc), **kw)


NANOCLAW = [
    T("k001", "flat", "Jess", "@Andy what time does the Pingo Doce on Rua dos Anjos close on Sundays?", [], ["flag-outdated-information"],
      chat=[("Tomás", "who's cooking tonight"), ("Mehdi", "not me, I'm at the gym till 9"), ("Jess", "I can do pasta if someone gets groceries")]),
    T("k002", "family", "Priya", "@Andy plan dinners for next week - Anika has gone vegetarian, Rohan still can't have peanuts - and make the Saturday shopping list", ["meal-plan-grocery-list"]),
    T("k003", "flat", "Clara", "@Andy how do we split the electricity bill? 184.20€ for February, Jess was away 10 days and Mehdi 3", ["double-check-arithmetic-units"], ["monthly-budget"],
      chat=[("Jess", "bill came in"), ("Mehdi", "ugh")]),
    T("k004", "family", "Dev", "@Andy is this text really from the bank? 'HSBC: A new payee was added to your account. If this wasn't you call 020 3808 4412 immediately'", ["spot-phishing"]),
    T("k005", "family", "Rohan", "@Andy thanks!!", [], chat=[("Andy", "Swimming is at 6pm on Tuesday and Thursday."), ("Priya", "👍")]),
    T("k006", "kids", "Kasia", "@Andy we're going to Gdańsk for 4 days in May, two adults and two kids (8 and 5). ideas for what to do and where to stay?", ["plan-travel-itinerary"]),
    T("k007", "family", "Priya", "@Andy find a time this weekend for a video call with Paati in Chennai and Vikram in Toronto, everyone's free after breakfast their time", ["schedule-across-time-zones"]),
    T("k008", "flat", "Andy", "Send the group a summary of this week's chores from chores.md: who did what and what's still open.", [], ["write-weekly-update", "summarize-long-document"], scheduled=True,
      loop=[("Read", {"file_path": "/workspace/group/chores.md"}, "# Week 10\n- kitchen: Tomás ✅\n- bathroom: Jess ✅\n- recycling: Mehdi ❌ (again)\n- hallway: Clara ✅", None)],
      note="a short scheduled summary; no skill needed"),
    T("k009", "design", "Femke", "@Andy can you turn the messages above into action items with owners?", ["meeting-notes-action-items"],
      chat=[("Femke", "Havenbank feedback: they want the onboarding shorter, 3 screens max"), ("Joris", "I can redo the onboarding flows by Wednesday"),
            ("Aylin", "we still need the new icon set, who's on that?"), ("Bram", "me, but I need the brand colours from their team first"),
            ("Femke", "I'll ask their marketing lead today. also the review with the client moves to Friday 14:00")]),
    T("k010", "kids", "Marek", "@Andy dzień dobry! 🌞", [], note="Polish greeting"),
    T("k011", "flat", "Tomás", "@Andy help me write to Sr. Duarte about the mould in the bathroom, he ignored two texts already. firm but polite, in Portuguese", ["write-professional-email"], ["deliver-bad-news-politely", "translate-and-localize"]),
    T("k012", "family", "Anika", "@Andy who won the Champions League last year?", [], ["flag-outdated-information"]),
    T("k013", "kids", "Kasia", "@Andy translate this school letter into Polish for Babcia: 'Dear parents, the school trip to the science museum on 14 April costs 35 zł per child. Please return the signed consent form by Friday. Children should bring a packed lunch.'", ["translate-and-localize"]),
    T("k014", "kids", "Marek", "@Andy the school emailed us to pay the trip via a link to schoolpay-secure-pl.net, is that legit? the school normally uses Librus", ["spot-phishing"]),
    T("k015", "kids", "Kasia", "@Andy we have 600 zł for Zosia's birthday party and 20 kids coming. help me split it between food, cake, decorations and party bags", ["double-check-arithmetic-units"], ["monthly-budget"]),
    T("k016", "family", "Dev", "@Andy summarise the residents' association thread about the new parking permits, it's 80 messages and I only care what we have to do", ["summarize-long-document"],
      chat=[("Dev", "[forwarded] From the Elmwood Residents group: 'From 1 April the council zone B permits go digital. Each household must register plates online by 25 March. Visitor permits become 20 scratch cards a year, extra ones 2.50 each. Old paper permits stop being valid on 31 March. Blue badge holders apply separately.'")]),
    T("k017", "family", "Priya", "@Andy remind us every Sunday at 6pm to put the bins out, and say which colour week it is", [], ["cron-scheduled-jobs"], note="the agent's scheduler does it"),
    T("k018", "design", "Bram", "@Andy the client wants the deck for Friday's review. outline it: onboarding redesign, what we changed and why, the 3 options for the icon style, next steps", ["prepare-presentation-slides"]),
]
